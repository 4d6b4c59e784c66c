"""The bounded YAML loader and dumper of study files.

A study file is read whole only below MAX_FILE_BYTES, counted while it is read
(a device or a pipe has no size to ask for); the parsed document is
measured before it is constructed (nesting, and the values it expands to with
YAML aliases counted as copies), so an alias bomb is refused at once; a key given
twice is refused (PyYAML would keep the last).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from sim.config.limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_VALUES
from sim.config.messages import show
from sim.errors import ConfigError
from sim.guard.inputs import TooLarge, read_text_bounded


def read_file(path: Path) -> Any:
    """One study file as parsed YAML (not yet validated)."""
    where = str(path)
    try:
        text = read_text_bounded(path, MAX_FILE_BYTES)  # counted while read: /dev/zero ends
    except TooLarge:
        too_big = f"{where}: larger than {MAX_FILE_BYTES:,} bytes; not a study file"
        raise ConfigError(too_big) from None
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{where}: is a directory, not a study file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read: {exc.strerror}") from None
    data = load_yaml(text, where)
    if data is None:
        raise ConfigError(f"{where}: file is empty; expected study settings such as 'players: 4'")
    return data


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last) and
    nesting deeper than MAX_DEPTH (composing is recursive)."""

    depth = 0

    def compose_node(self, parent, index):
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    f"nested more than {MAX_DEPTH} levels deep",
                    self.peek_event().start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=deep)
        try:
            first = seen.setdefault(key, key_node)
        except TypeError:
            continue  # unhashable key: construct_mapping reports it
        if first is not key_node:  # also on one line: {fish: 1, fish: 9}
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {show(key)} (first given on line {first.start_mark.line + 1})",
                key_node.start_mark,
            )
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes the empty key of the no-wall box card as `'': 6`, not as the
    complex-key form `? ''` / `: 6` PyYAML uses for every empty key."""

    def check_simple_key(self) -> bool:
        if isinstance(self.event, yaml.ScalarEvent) and self.event.value == "":
            if self.analysis is None:
                self.analysis = self.analyze_scalar(self.event.value)
            return True
        return super().check_simple_key()


# libyaml's emitter writes the empty key as `'': 6` itself and the same text as _Dumper
# (tests/config/test_yamlio.py), four times as fast: a run writes its study at the end.
_FAST_DUMPER = getattr(yaml, "CSafeDumper", None)


def dump_yaml(data: Any) -> str:
    """A study mapping as YAML in its own key order, readable by `load_study`."""
    return yaml.dump(data, Dumper=_FAST_DUMPER or _Dumper, sort_keys=False, allow_unicode=True)


def load_yaml(text: str, where: str) -> Any:
    """yaml load with syntax errors as one line that carries the line number; the document
    is measured before it is built, so an alias bomb is refused before it explodes."""
    loader = None
    try:
        loader = _Loader(text)  # its reader refuses control characters at once
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, where)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        at, problem = yaml_problem(exc)
        raise ConfigError(" ".join(f"{where}: {at}invalid YAML: {problem}".split())) from None
    except ValueError:  # Python reads no whole number of more than 4300 digits
        raise ConfigError(f"{where}: a number is too long to read (over 4300 digits)") from None
    finally:
        if loader is not None:
            loader.dispose()


def _check_expansion(root: yaml.Node, where: str) -> None:
    """Refuse a document that expands to more than MAX_VALUES values, every alias counted as
    a copy of what it points to, or that contains itself. Each node is sized once."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # nodes whose children are being sized
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        kids = _kids(node)
        if children_done:
            open_.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes[id(k)] for k in kids)
            if sizes[id(node)] > MAX_VALUES:
                mark = node.start_mark
                raise ConfigError(
                    f"{where}: line {mark.line + 1}: expands to more than {MAX_VALUES:,} values"
                    " (YAML aliases repeat what they point to); a study needs far fewer"
                )
        elif id(node) in open_:
            raise ConfigError(
                f"{where}: line {node.start_mark.line + 1}: a value contains itself (YAML alias)"
            )
        elif id(node) not in sizes:
            open_.add(id(node))
            stack.append((node, True))
            stack.extend((k, False) for k in kids if id(k) not in sizes)


def _kids(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def yaml_problem(exc: yaml.YAMLError) -> tuple[str, str]:
    """('line 3, column 5: ', problem) from a PyYAML error, whose str() spans lines."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return "", " ".join(str(exc).split())
    mark = exc.problem_mark or exc.context_mark
    at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    problem = exc.problem or exc.context or "unreadable"
    if exc.context and exc.problem:
        started = f" on line {exc.context_mark.line + 1}" if exc.context_mark else ""
        problem += f" ({exc.context}{started})"
    return at, problem
