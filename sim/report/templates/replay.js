"use strict";
// The replay page: step through one game (sim replay). Data: sim.table.replay.page_data.
(() => {
  const D = JSON.parse(document.getElementById("replay-data").textContent);
  BOARD.setColours(D.colours);
  const last = D.steps.length - 1;
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
  const pct = (x) => (x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%");
  const swatch = (p) => `<span class="swatch" style="background:${BOARD.colour(p)}"></span>`;
  const series = [...Array(D.players).keys()].map((p) => D.steps.map((s) => s.t.scores[p]));
  const marks = Object.keys(D.whatif).map(Number);
  // The first step of each turn: where the turns counter moves on (for turn-by-turn steps).
  const turnStarts = D.steps.map((s, k) => k).filter((k) => k === 0 || D.steps[k].turns !== D.steps[k - 1].turns);
  let now = 0;

  $("slider").max = last;
  $("facts").innerHTML = `${esc(D.source)} · seed ${D.seed}, game ${D.game} · config hash ${esc(D.config_hash)} · ` +
    `${last} decisions · seats: ` + D.labels.map((l, p) => `${swatch(p)}${p} ${esc(l)}`).join(", ") +
    (D.expected ? ` · final scores as in the run's tables (${D.expected.join(", ")})` : "") +
    (D.finished ? "" : " · the game was not finished");

  function show(k) {
    now = Math.max(0, Math.min(last, k));
    const s = D.steps[now];
    $("slider").value = now;
    const where = now === 0 ? "after setup" : `after decision ${now}`;
    const turn = s.seat >= 0 ? `turn ${s.turns + 1}, ${s.phase} phase` : `${s.turns} turns played`;
    $("step-label").textContent = `step ${now} of ${last} (${where}; ${turn})`;
    document.body.dataset.step = now;
    BOARD.draw($("board"), s.t, {kinds: D.kinds, highlight: s.hl, maxWidth: 860, maxScale: 1.4, id: "r"});
    BOARD.trace($("trace"), series, now, {marks, onPick: show});
    chances();
    moves();
    scores(s);
    decision(s);
    $("did").innerHTML = s.did.length ? s.did.map((t) => `<li>${esc(t)}</li>`).join("") : "<li>nothing yet: the game has just been set up</li>";
    hands(s);
    whatif();
    const fin = now === last && D.finished;
    $("final-panel").hidden = !fin;
    if (fin) final();
  }

  // Each seat's chance at every step (sim.table.replay.step_chances), or why there is none.
  function chances() {
    if (!D.chances) {
      $("chance-panel").hidden = true;
      return;
    }
    const bySeat = [...Array(D.players).keys()].map((p) => D.chances.map((c) => c[p]));
    BOARD.trace($("chances"), bySeat, now, {onPick: show, label: "chance of winning"});
    const c = D.chances[now];
    $("chance-note").innerHTML = [...Array(D.players).keys()].map((p) => `${swatch(p)}seat ${p} ${pct(c[p])}`).join(" · ") +
      ". From every seat's score, the round and who sits where, never a hand; the chances move when a round ends" +
      (D.finished ? ", and the last step is the outcome." : ".");
  }

  // Each seat's chance at every turn's start by re-dealt continuations (sim.table.spectator):
  // a step between two turn starts shows the chances at the start of its turn.
  function moves() {
    if (!D.moves) {
      $("moves-panel").hidden = true;
      return;
    }
    const at = D.moves.at, rows = D.moves.p, idx = [];
    for (let k = 0, j = 0; k <= last; k++) {
      while (j + 1 < at.length && at[j + 1] <= k) j++;
      idx.push(j);
    }
    const bySeat = [...Array(D.players).keys()].map((p) => idx.map((i) => rows[i][p]));
    BOARD.trace($("moves"), bySeat, now, {onPick: show, label: "chance of winning, move by move"});
    const c = rows[idx[now]];
    $("moves-note").innerHTML = [...Array(D.players).keys()].map((p) => `${swatch(p)}seat ${p} ${pct(c[p])}`).join(" · ") +
      `. At the start of every turn: ${D.moves.n} continuations, every hand and the deck re-dealt from the cards a` +
      ` spectator has not seen and played on by the game's own seats (each chance within ±${Math.round(100 * D.moves.half)} pp` +
      " at 95%). They read the whole public table (boxes, cats, the cards left) but know nothing the players' choices" +
      " reveal about their hands; the round chances above read only the scores, the round and who sits where, and" +
      " learnt from games' outcomes.";
  }

  function scores(s) {
    const rows = [...Array(D.players).keys()].map((p) =>
      `<tr><td>${swatch(p)}seat ${p}</td><td>${esc(D.labels[p])}</td><td>${s.t.scores[p]}</td>` +
      `<td>${s.t.box_points[p]}</td><td>${s.t.cat_bonus[p]}</td><td>${s.awake[p]}</td><td>${s.asleep[p]}</td>` +
      `<td>${s.hands[p].length}</td></tr>`).join("");
    $("scores").innerHTML = `<table class="t" id="score-table"><tr><th>seat</th><th>policy</th><th>score</th>` +
      `<th>box points</th><th>cat bonus</th><th>awake cats left</th><th>sleeping left</th><th>hand</th></tr>${rows}</table>` +
      `<p class="note">Deck: ${s.deck} cards. Scores are the table's as if the game ended here (R8).</p>`;
  }

  function decision(s) {
    if (s.seat < 0) {
      $("decision").innerHTML = s.decision === "over" ? "<p>The game is over.</p>" : "<p>The log stops here: the game was abandoned.</p>";
      return;
    }
    const time = s.ms !== undefined ? ` · a person took ${(s.ms / 1000).toFixed(1)} s` : "";
    const alts = s.alts.map((t) => `<li>${esc(t)}</li>`).join("") + (s.more ? `<li>… and ${s.more} more lines</li>` : "");
    $("decision").innerHTML = `<p>${swatch(s.seat)}<b>seat ${s.seat}</b> (${esc(D.labels[s.seat])}) at a <b>${esc(s.decision)}</b> decision, ` +
      `${s.options} legal action${s.options === 1 ? "" : "s"}${time}</p>` +
      `<p>chose: <span class="chosen" id="chosen">${esc(s.chose)}</span></p>` +
      (s.options > 1 ? `<p class="note">the alternatives it had:</p><ul class="alts" id="alts">${alts}</ul>` : "<p class=\"note\">no alternative</p>");
  }

  function hands(s) {
    let html = "";
    for (let p = 0; p < D.players; p++) {
      const cards = s.hands[p].map((i) => D.cards[i]);
      html += `<div class="hand" data-seat="${p}"><span class="who">${swatch(p)}seat ${p}</span>`;
      html += cards.length ? cards.map((c, i) => `<figure id="h${p}-${i}"><figcaption>${esc(c === "box:" ? "box:(no walls)" : c)}</figcaption></figure>`).join("") : "<span class=\"note\">empty</span>";
      html += "</div>";
    }
    html += `<p class="note">Deck: ${s.deck} cards${s.next.length ? "; next: " + s.next.map((i) => esc(D.cards[i])).join(", ") : ""}.</p>`;
    $("hands").innerHTML = html;
    for (let p = 0; p < D.players; p++) {
      s.hands[p].forEach((i, j) => {
        const fig = $(`h${p}-${j}`);
        fig.insertBefore(BOARD.card(D.cards[i], {kinds: D.kinds}), fig.firstChild);
      });
    }
  }

  function whatif() {
    const w = D.whatif[String(now)];
    if (!w) {
      $("whatif").innerHTML = `<p class="note">Not computed for this step. <code>sim replay ${esc(D.command)} --from ${now} --continuations 200</code> computes it.</p>`;
    } else {
      const rows = w.seats.map((x, p) =>
        `<tr><td>${swatch(p)}seat ${p}</td><td>${pct(x.share)}</td><td>[${pct(x.lo)}, ${pct(x.hi)}]</td><td>${x.mean_score.toFixed(2)}</td></tr>`).join("");
      $("whatif").innerHTML = `<table class="t" id="whatif-table"><tr><th>seat</th><th>win chance</th><th>95% interval</th><th>mean final score</th></tr>${rows}</table>` +
        `<p class="note">${w.n} continuations from step ${w.step}, played by ${esc(w.policy)}; ` +
        (w.unseen === "deck" ? "the deck reshuffled, every hand kept as it is." : `the cards ${esc(w.unseen)} has not seen re-dealt.`) +
        " A tie shares the win (R8.6).</p>";
    }
    $("marks").innerHTML = marks.length ? "Computed at steps: " + marks.map((m) => `<a href="#" data-step="${m}">${m}</a>`).join("") : "";
    for (const a of $("marks").querySelectorAll("a")) a.onclick = (e) => { e.preventDefault(); show(Number(a.dataset.step)); };
  }

  function final() {
    const f = D.final;
    const head = [...Array(D.players).keys()].map((p) => `<th>${swatch(p)}seat ${p}</th>`).join("");
    const rows = f.boxes.map((b) => `<tr><td>${b.size} card${b.size === 1 ? "" : "s"} from [${b.nw.join(", ")}]</td>` +
      `<td>${b.closed ? "yes (doubled)" : "no"}</td><td>${esc(Object.entries(b.toys).map(([k, v]) => `${k} ${v}`).join(", ") || "–")}</td>` +
      `<td>${b.sprayers}</td><td>${b.value}</td>` + b.points.map((x) => `<td>${x || ""}</td>`).join("") + "</tr>").join("");
    const total = (name, arr) => `<tr><th colspan="5">${name}</th>` + arr.map((x) => `<th>${x}</th>`).join("") + "</tr>";
    $("final").innerHTML = `<table class="t" id="final-table"><tr><th>box</th><th>closed</th><th>toys</th><th>sprayers</th><th>value</th>${head}</tr>${rows}` +
      total("box points", f.box_points) + total("cat bonus (R8.5)", f.cat_bonus) + total("final score", f.scores) + "</table>" +
      `<p>Winner${f.winners.length > 1 ? "s (a shared win)" : ""}: ${f.winners.map((p) => "seat " + p).join(", ")}.</p>`;
  }

  const turnStep = (dir) => {
    if (dir > 0) return turnStarts.find((k) => k > now) ?? last;
    const before = turnStarts.filter((k) => k < now);
    return before.length ? before[before.length - 1] : 0;
  };
  $("first").onclick = () => show(0);
  $("last").onclick = () => show(last);
  $("prev").onclick = () => show(now - 1);
  $("next").onclick = () => show(now + 1);
  $("prev-turn").onclick = () => show(turnStep(-1));
  $("next-turn").onclick = () => show(turnStep(1));
  $("slider").oninput = () => show(Number($("slider").value));
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "INPUT") return;
    const keys = {ArrowLeft: () => (e.shiftKey ? turnStep(-1) : now - 1), ArrowRight: () => (e.shiftKey ? turnStep(1) : now + 1),
                  PageUp: () => turnStep(-1), PageDown: () => turnStep(1), Home: () => 0, End: () => last};
    if (keys[e.key]) { e.preventDefault(); show(keys[e.key]()); }
  });
  const fromHash = Number((location.hash.match(/step=(\d+)/) || [])[1]);
  show(Number.isFinite(fromHash) ? fromHash : 0);
})();
