"use strict";
// The live table of `sim table`: draws the state the server sends for the seat at the screen,
// offers exactly the legal actions of its decision (targets on the table, buttons, and a list
// for keyboard users), and sends what is clicked. The server is the judge: a click that names
// no legal action comes back refused with one line, which is shown. Bots' turns are asked for
// one turn at a time, after a short pause, so they can be watched.
(() => {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
  const label = (c) => (c === "box:" ? "box:(no walls)" : c);
  const swatch = (p) => `<span class="swatch" style="background:${BOARD.colour(p)}"></span>`;
  let S = null;          // the last state from the server
  let viewer = null;     // the seat whose hand is on the screen (null: nobody's)
  let sel = {card: null, turned: false};
  let botTimer = null;
  let busy = false;

  async function api(path, body) {
    const opts = body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"},
                                            body: JSON.stringify(body)};
    const resp = await fetch(path, opts);
    const data = await resp.json();
    if (!resp.ok) throw new Error(data.error || `the server said ${resp.status}`);
    return data;
  }
  const say = (text) => { $("message").textContent = text || ""; };

  function humans() { return S ? S.humans : []; }
  // Who may see a hand now: the one person at a one-person table; at a table of several
  // people, the seat to decide, once the screen has been handed over (the cover).
  function wantViewer() {
    if (humans().length === 1) return humans()[0];
    if (!S || S.over || !S.mover_human) return null;
    return viewer === S.mover ? viewer : "cover";
  }

  async function load() {
    const q = viewer === null ? "" : `?seat=${viewer}`;
    accept(await api("/api/state" + q));
  }

  function accept(state) {
    S = state;
    BOARD.setColours(S.colours);
    const want = wantViewer();
    if (want === "cover") {
      viewer = null;
      if (S.seat !== undefined) return load();  // never keep a hand on screen past its turn
    } else if (want !== viewer) {
      viewer = want;
      return load();
    }
    render();
    schedule();
  }

  function schedule() {
    clearTimeout(botTimer);
    if (!S || S.over || S.abandoned || S.mover_human) return;
    botTimer = setTimeout(botStep, S.pause_ms);
  }

  async function botStep() {
    if (busy) return schedule();
    busy = true;
    try {
      const r = await api("/api/bot", {seat: viewer});
      busy = false;
      accept(r.state);
    } catch (err) {
      busy = false;
      say(err.message);
      botTimer = setTimeout(botStep, 2000);
    }
  }

  async function send(body) {
    if (busy) return;
    busy = true;
    try {
      const r = await api("/api/action", {seat: viewer, ...body});
      busy = false;
      say("");
      sel = {card: null, turned: false};
      accept(r.state);
    } catch (err) {
      busy = false;
      say(err.message);
    }
  }

  const legal = () => (S && S.legal) || [];
  const myTurn = () => S && !S.over && S.mover_human && viewer === S.mover && S.legal;

  function pickCard() {
    const hand = (S && S.hand) || [];
    if (sel.card !== null && hand.includes(sel.card)) return;
    const playable = hand.find((c) => legal().some((a) => a.card === c && (a.kind === "place" || a.kind === "princess")));
    sel = {card: playable || hand[0] || null, turned: false};
    if (sel.card && !legal().some((a) => a.kind === "place" && a.card === sel.card && !a.turned) &&
        legal().some((a) => a.kind === "place" && a.card === sel.card && a.turned)) sel.turned = true;
  }

  function targets() {
    if (!myTurn()) return [];
    const d = S.decision, out = [];
    for (const a of legal()) {
      if (d === "item" && a.kind === "item") out.push({type: "seam", between: a.between, code: a.code, text: a.text});
      else if (d === "cat" && a.kind === "cat") out.push({type: "pair", at: a.at, code: a.code, text: a.text});
      else if (d === "sleep" && a.kind === "sleep_at" && a.turned === sel.turned) out.push({type: "cell", at: a.at, code: a.code, text: a.text});
      else if (d === "play" && a.card === sel.card) {
        if (a.kind === "place" && a.turned === sel.turned) out.push({type: "cell", at: a.at, code: a.code, text: a.text});
        if (a.kind === "princess") out.push({type: "pair", at: a.at, code: a.code, text: a.text});
      }
    }
    return out;
  }

  function request(where) {
    if (!S || S.over) return say(S && S.abandoned ? "this game was abandoned: start a new one" : "the game is over: start a new one");
    if (!S.mover_human) return say(`wait: it is seat ${S.mover}'s turn (a bot)`);
    if (viewer !== S.mover) return say(`it is seat ${S.mover}'s turn: show that seat's hand first`);
    const d = S.decision;
    let req;
    if (d === "play") req = sel.card === "princess" ? {kind: "princess", card: "princess", at: where.cell}
                                                  : {kind: "place", card: sel.card, turned: sel.turned, at: where.cell};
    else if (d === "cat") req = {kind: "cat", at: where.pair[0]};
    else if (d === "item") req = {kind: "item", between: where.seam};
    else if (d === "sleep") req = {kind: "sleep_at", at: where.cell, turned: sel.turned};
    else req = {kind: "board"};
    send({request: req});
  }

  function prompt() {
    if (S.abandoned) return "This game was abandoned. Start a new one.";
    if (S.over) {
      const w = S.final.winners;
      return `Game over. ${w.length > 1 ? "Shared win: " : "Winner: "}${w.map((p) => `seat ${p}`).join(", ")}.`;
    }
    const who = S.seats[S.mover];
    if (!S.mover_human) return `Seat ${S.mover} (${who.policy}) is playing…` + (S.last.words.length ? "" : "");
    if (viewer !== S.mover) return `Seat ${S.mover}'s turn.`;
    const d = S.decision;
    if (d === "choose") return "Your turn: take the box action (draw, then play a card) or the sleeping-cat action.";
    if (d === "item") return `You drew ${S.pending_item}: click a free open seam (a blue circle) to put it on (R5.1).`;
    if (d === "cat") return "You may put an awake cat on the card you just placed and its neighbour (blue ovals), or choose no cat.";
    if (d === "sleep") return "Put your sleeping-cat card on a highlighted cell.";
    if (legal().every((a) => a.kind === "discard")) return "No card in your hand can be played: click one to discard it (R3.1).";
    return "Play a card: pick it in your hand, then click a highlighted cell" + (legal().some((a) => a.kind === "princess") ? " (the Princess: click a cat)." : ".");
  }

  function render() {
    const nh = humans().length;
    const dealt = S.seed === null ? `game ${S.game}` : `game ${S.game} of seed ${S.seed}`;  // the seed once the game is over
    $("facts").textContent = `${dealt} · ${S.players} players · log ${S.log}`;
    $("new-game").textContent = S.over || S.abandoned ? "New game" : "Abandon this game…";
    $("status").textContent = prompt() + (S.last.words.length && !myTurn() ? "  —  " + S.last.words.join("; ") : "");
    if (myTurn()) pickCard();
    const hl = S.last;
    BOARD.draw($("board"), S.table, {kinds: S.kinds, rim: S.over ? 0 : 1, targets: targets(), highlight: hl,
                                     onTarget: (t) => send({code: t.code}), onBoard: request, maxWidth: 880, maxScale: 1.6, id: "live"});
    document.body.dataset.step = S.step;
    document.body.dataset.game = S.game;
    document.body.dataset.turn = S.over || S.abandoned ? "over" : myTurn() ? "mine" : "wait";
    seats();
    hand();
    feed();
    cover(nh);
    finalTable();
  }

  function seats() {
    const rows = S.seats.map((s) =>
      `<tr${s.seat === S.mover ? ' style="font-weight:600"' : ""}><td>${s.seat === S.mover ? "▶ " : ""}${swatch(s.seat)}seat ${s.seat}</td>` +
      `<td>${esc(s.human ? (humans().length === 1 ? "you" : "person") : s.policy)}</td><td>${S.table.scores[s.seat]}</td>` +
      `<td>${S.hand_sizes[s.seat]}</td><td>${S.awake_supply[s.seat]}</td><td>${S.sleeping_supply[s.seat]}</td></tr>`).join("");
    $("seats").innerHTML = `<table class="t" id="seat-table"><tr><th>seat</th><th>player</th><th>score</th><th>cards</th>` +
      `<th>awake cats</th><th>sleeping</th></tr>${rows}</table>`;
    const discards = Object.entries(S.discarded).map(([k, v]) => `${esc(label(k))} ${v}`).join(", ");
    $("counts").innerHTML = `Deck: <b id="deck-count">${S.deck}</b> cards. Scores are the table's as it stands (R8).` +
      (discards ? ` Discarded: ${discards}.` : "") + (S.end_triggered !== "none" ? ` End triggered (${esc(S.end_triggered)}): final phase.` : "");
  }

  function hand() {
    const box = $("hand"), controls = $("controls"), list = $("legal");
    box.textContent = ""; controls.textContent = ""; list.textContent = "";
    $("yours").hidden = viewer === null;
    if (viewer === null) return;
    $("hand-title").textContent = humans().length === 1 ? `Your hand (seat ${viewer})` : `Seat ${viewer}'s hand`;
    const mine = myTurn();
    const discardOnly = mine && S.decision === "play" && legal().every((a) => a.kind === "discard");
    for (const c of S.hand || []) {
      const b = document.createElement("button");
      const usable = legal().some((a) => a.card === c);
      b.className = (mine && S.decision === "play" && c === sel.card ? "selected" : "") + (mine && S.decision === "play" && !usable ? " dead" : "");
      b.appendChild(BOARD.card(c, {kinds: S.kinds, turned: c === sel.card && sel.turned}));
      b.appendChild(document.createTextNode(label(c) + (c === sel.card && sel.turned ? " (turned)" : "")));
      b.setAttribute("data-card", c);
      b.onclick = () => {
        if (!mine) return say(S.over ? "the game is over" : "not your turn to play");
        if (S.decision !== "play") return say(`first ${prompt().replace(/^Your turn: /, "").toLowerCase()}`);
        if (discardOnly) {
          const a = legal().find((x) => x.kind === "discard" && x.card === c);
          return send({code: a.code});
        }
        sel = {card: c, turned: false};
        if (!legal().some((a) => a.card === c && !a.turned) && legal().some((a) => a.card === c && a.turned)) sel.turned = true;
        render();
        if (!usable) send({request: c === "princess" ? {kind: "princess", card: c, at: null} : {kind: "place", card: c, turned: false, at: null}});
      };
      box.appendChild(b);
    }
    for (const id of ["legal", "legal-label", "controls2"]) $(id).hidden = !mine;
    if (!mine) return;
    const button = (text, code, id) => {
      const b = document.createElement("button");
      b.textContent = text; b.className = "primary"; if (id) b.id = id;
      b.onclick = () => send({code});
      controls.appendChild(b);
    };
    for (const a of legal()) {
      if (a.kind === "box") button("Box action: draw and play a card", a.code, "act-box");
      if (a.kind === "sleeping") button("Sleeping-cat action", a.code, "act-sleeping");
      if (a.kind === "no_cat") button("No cat", a.code, "act-no-cat");
    }
    const canTurn = (S.decision === "play" && legal().some((a) => a.kind === "place" && a.card === sel.card && a.turned)) ||
                    (S.decision === "sleep" && legal().some((a) => a.turned));
    if (canTurn) {
      const t = document.createElement("button");
      t.id = "turn"; t.textContent = "Turn the card (R)";
      t.onclick = () => { sel.turned = !sel.turned; render(); };
      controls.appendChild(t);
    }
    for (const a of legal()) {
      const o = document.createElement("option");
      o.value = a.code; o.textContent = a.text;
      list.appendChild(o);
    }
    list.selectedIndex = 0;
    $("do").disabled = false;
  }

  function feed() {
    const ol = $("feed-list");
    ol.innerHTML = S.feed.map((t) => `<li>${esc(t)}</li>`).join("");
    ol.scrollTop = ol.scrollHeight;
  }

  function cover(nh) {
    const show = nh > 1 && !S.over && S.mover_human && viewer !== S.mover;
    $("cover").hidden = !show;
    if (show) $("cover-text").textContent = `Seat ${S.mover}'s turn. Hand the screen to seat ${S.mover}'s player; the other hands stay hidden.`;
    $("reveal").textContent = `I am seat ${S.mover}: show my hand`;
  }

  function finalTable() {
    $("final-section").hidden = !S.over;
    if (!S.over) return;
    const f = S.final, n = S.players;
    const head = [...Array(n).keys()].map((p) => `<th>${swatch(p)}seat ${p}</th>`).join("");
    const rows = f.boxes.map((b) => `<tr><td>${b.size} card${b.size === 1 ? "" : "s"} from [${b.nw.join(", ")}]</td>` +
      `<td>${b.closed ? "yes (doubled)" : "no"}</td><td>${esc(Object.entries(b.toys).map(([k, v]) => `${k} ${v}`).join(", ") || "–")}</td>` +
      `<td>${b.sprayers}</td><td>${b.value}</td>` + b.points.map((x) => `<td>${x || ""}</td>`).join("") + "</tr>").join("");
    const total = (name, arr, id) => `<tr id="${id}"><th colspan="5">${name}</th>` + arr.map((x) => `<th>${x}</th>`).join("") + "</tr>";
    $("final").innerHTML = `<table class="t" id="final-table"><tr><th>box</th><th>closed</th><th>toys</th><th>sprayers</th><th>value</th>${head}</tr>${rows}` +
      total("box points", f.box_points, "final-box") + total("cat bonus (R8.5)", f.cat_bonus, "final-cats") +
      total("final score", f.scores, "final-scores") + "</table>";
  }

  $("do").onclick = () => { const v = $("legal").value; if (v !== "") send({code: Number(v)}); };
  $("legal").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); $("do").click(); } });
  $("reveal").onclick = () => { viewer = S.mover; load().catch((e) => say(e.message)); };
  $("new-game").onclick = () => {
    if (S && (S.over || S.abandoned)) return newGame();
    $("confirm").hidden = false;
  };
  $("abandon-no").onclick = () => { $("confirm").hidden = true; };
  $("abandon-yes").onclick = () => { $("confirm").hidden = true; newGame(); };
  async function newGame() {
    clearTimeout(botTimer);
    try {
      const r = await api("/api/new", {seat: null});
      viewer = null; sel = {card: null, turned: false}; say("");
      accept(r.state);
    } catch (err) { say(err.message); }
  }
  document.addEventListener("keydown", (e) => {
    if ((e.key === "r" || e.key === "R") && e.target.tagName !== "SELECT" && $("turn")) $("turn").click();
  });
  document.addEventListener("visibilitychange", () => { if (!document.hidden) load().catch((e) => say(e.message)); });
  load().catch((e) => { $("status").textContent = "The table's server does not answer: " + e.message; });
})();
