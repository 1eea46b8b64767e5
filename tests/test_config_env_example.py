"""The README says ``.env.example`` documents every variable the settings read: each name the
settings modules pass to ``os.environ``, ``env_bool`` or ``env_list`` appears there."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READS = re.compile(r"""(?:os\.environ(?:\.get)?\(|os\.environ\[|env_bool\(|env_list\()\s*["']([A-Z][A-Z0-9_]+)["']""")


def test_env_example_names_every_variable_the_settings_read():
    read = {name for path in (ROOT / "config" / "settings").glob("*.py") for name in READS.findall(path.read_text())}
    assert len(read) > 30  # the pattern still finds the settings' reads
    documented = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.MULTILINE))
    assert sorted(read - documented) == []
