#!/usr/bin/env python3
"""The source documents' way of saving session state, for comparison:
read the JSON, update it, write <file>.tmp, keep <file>.bak, rename."""
import json
import os
import shutil
import sys
from datetime import datetime, timezone

path = sys.argv[1]
with open(path) as f:
    state = json.load(f)
state.setdefault("notes", []).append(
    {"text": "bench", "agent": None, "timestamp": datetime.now(timezone.utc).isoformat()})
state["updated"] = datetime.now(timezone.utc).isoformat()
tmp = path + ".tmp"
with open(tmp, "w") as f:
    json.dump(state, f, indent=2)
if os.path.exists(path):
    shutil.copy2(path, path + ".bak")
os.replace(tmp, path)
