"""The definition file: substitute `{{ NAME }}` build arguments, split sections, parse with spython.

Apptainer substitutes `{{ NAME }}` everywhere (header included) and fails on an undefined name; we do
the same so that lint sees exactly what Apptainer would build. spython (0.3.x) then parses the
rendered text, with two known limits we work around here rather than trust blindly:
  * it accepts only `Bootstrap: docker` (anything else raises NotImplementedError), so a
    `localimage` header (the smoke flavour) is swapped for a docker one *for parsing only*; the real
    header is kept and checked by `lint` separately;
  * it drops %help and %arguments and loses the From header when a comment contains `from:`, so
    section presence comes from our own scan, and a From that disagrees with ours is reported.
"""

import importlib.util
import re
import tempfile
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

from app.host.common.errors import UsageError

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_SECTION = re.compile(r"^%([A-Za-z]+)\b")
_HEADER = re.compile(r"^([A-Za-z]+):\s*(.*?)\s*$")


class DefinitionError(UsageError):
    """The definition file breaks an invariant; the message lists every problem and its fix."""


def placeholders(text: str) -> List[str]:
    """Names used as `{{ NAME }}`, in order of first use."""
    return list(dict.fromkeys(_PLACEHOLDER.findall(text)))


def substitute(text: str, args: Dict[str, str]) -> str:
    """Replace every `{{ NAME }}`; undefined names are an error, as in Apptainer."""
    missing = [name for name in placeholders(text) if name not in args]
    if missing:
        raise DefinitionError(f"the definition uses undefined build arguments {', '.join(missing)}; "
                              "add them to containers/versions.env or containers/arch/<arch>.env")
    return _PLACEHOLDER.sub(lambda m: args[m.group(1)], text)


class Definition(NamedTuple):
    """A rendered (or template) definition split into its header and %sections."""

    header: Dict[str, str]
    sections: Dict[str, List[str]]

    @classmethod
    def split(cls, text: str) -> "Definition":
        header: Dict[str, str] = {}
        sections: Dict[str, List[str]] = {}
        current: Optional[List[str]] = None
        for line in text.splitlines():
            section = _SECTION.match(line)
            if section:
                current = sections.setdefault(section.group(1).lower(), [])
            elif current is not None:
                current.append(line)
            elif _HEADER.match(line.strip()) and not line.lstrip().startswith("#"):
                match = _HEADER.match(line.strip())
                header[match.group(1).lower()] = match.group(2)
        return cls(header, sections)

    def body(self, name: str) -> List[str]:
        """The section's lines without blank lines and comments, stripped."""
        return [line.strip() for line in self.sections.get(name, [])
                if line.strip() and not line.strip().startswith("#")]

    def labels(self) -> Dict[str, str]:
        pairs = (line.split(None, 1) for line in self.body("labels"))
        return {pair[0]: (pair[1] if len(pair) > 1 else "") for pair in pairs}


class Parsed(NamedTuple):
    """What spython understood of the rendered definition (docker header substituted if needed)."""

    from_header: str
    install: List[str]
    environ: List[str]
    files: List[List[str]]
    labels: List[str]
    test: Optional[str]


def spython_installed() -> bool:
    return importlib.util.find_spec("spython") is not None


def parse_with_spython(rendered: str, definition: Definition) -> Parsed:
    """Parse with spython's SingularityParser; localimage headers are swapped for docker to parse."""
    try:
        from spython.logger.message import ERROR, bot
        from spython.main.parse.parsers import SingularityParser
    except ModuleNotFoundError:
        raise UsageError("spython is not installed; install the image tools: pip install -e '.[image]'") from None

    text = rendered
    bootstrap = definition.header.get("bootstrap", "")
    if bootstrap != "docker":
        # spython parses only docker bootstraps; the body is what we want it to read.
        text = re.sub(r"(?im)^Bootstrap:.*$", "Bootstrap: docker", text, count=1)
    # spython prints through its own logger, not `logging`: its warnings about our (valid) multi-line
    # %runscript would land in the user's terminal. Errors still show.
    bot.level = min(bot.level, ERROR)
    with tempfile.NamedTemporaryFile("w", suffix=".def", delete=False) as handle:
        handle.write(text)
        path = Path(handle.name)
    try:
        recipe = SingularityParser(str(path)).recipe
    except NotImplementedError as err:
        raise DefinitionError(f"spython cannot parse the definition: {err}") from None
    finally:
        path.unlink()
    layer = recipe[next(iter(recipe))]
    return Parsed(from_header=layer.fromHeader or "", install=list(layer.install),
                  environ=list(layer.environ), files=[list(f) for f in layer.files],
                  labels=list(layer.labels), test=layer.test)
