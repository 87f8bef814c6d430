"""Running the JavaScript port under node, without a browser or a site build.

The port's modules (``docs/assets/javascripts/*.js``) are copied to a temporary
folder beside the model modules the site's hook writes (``handtf-model.js``,
``induction-model.js``, ``adder-model.js``), and a script that imports them runs in node. Its
answer is the JSON it prints.
"""

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from pages import ROOT
from port_models import load_hook

SCRIPTS = ROOT / "docs" / "assets" / "javascripts"


def port_folder():
    """A temporary folder holding the port's modules and the generated model modules (removed at exit by the caller)."""
    folder = Path(tempfile.mkdtemp(prefix="handtf-port-"))
    for script in SCRIPTS.glob("*.js"):
        shutil.copy(script, folder / script.name)
    (folder / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    # the widgets mount themselves when the page has loaded: a page that never finishes loading
    (folder / "no-page.js").write_text(
        'globalThis.document = { readyState: "loading", addEventListener() {} };\n', encoding="utf-8")
    hook = load_hook()
    (folder / "handtf-model.js").write_text(hook.module_source(), encoding="utf-8")
    (folder / "induction-model.js").write_text(hook.induction_module_source(), encoding="utf-8")
    (folder / "adder-model.js").write_text(hook.adder_module_source(), encoding="utf-8")
    return folder


def run_node(folder, body, data=None):
    """Run ``body`` (an async function body that may use ``H``, the port, ``I``, the induction port,
    ``P``, the playground, ``A``, the adder's widget, and ``data``) in node; return the value it returns, through JSON."""
    script = (
        'import "./no-page.js";\n'
        'import * as H from "./handtf.js";\n'
        'import * as I from "./induction.js";\n'
        'import * as P from "./playground.js";\n'
        'import * as A from "./adder.js";\n'
        'import { readFileSync } from "node:fs";\n'
        'const data = JSON.parse(readFileSync(0, "utf8"));\n'
        f"const result = await (async () => {{ {body} }})();\n"
        "process.stdout.write(JSON.stringify(result));\n"
    )
    (folder / "probe.mjs").write_text(script, encoding="utf-8")
    done = subprocess.run(
        ["node", "probe.mjs"], cwd=folder, input=json.dumps(data), capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode:
        raise RuntimeError(f"node failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)
