#!/usr/bin/env python3
"""Rebuilds the capture fixtures (fixtures/<api>/<name>.json) from the source texts the manifest cites.

    python3 import_captures.py SOURCES_DIR

SOURCES_DIR holds one `<name>.json` per capture: `{"repo", "path", "commit", "text"}`, the text of the
cited file at the cited commit. Its repository, path and commit must
be the manifest's. Standard library only, plus PyYAML for the `vcr-yaml` framing.

Source framings (the manifest's `framing`):
  jsonl   one streamed `data` payload per line (the Vercel AI SDK's `*.chunks.txt`). The payloads are kept
          verbatim; the SSE framing around them is rebuilt the way each API sends it: an `event:` line naming
          the payload's `type` (Anthropic Messages, OpenAI Responses) and, for Chat Completions, the closing
          `data: [DONE]`.
  sse     a whole SSE body, replayed byte for byte; a file stored without the blank line that ends its last
          event (no final newline) gets it back, as the API sends it.
  vcr-yaml  a VCR cassette (pydantic-ai's `tests/**/cassettes/*.yaml`): the body (`string`, or `content`
          in the newer cassette layout) of the manifest's `interaction` (its index in `interactions`),
          replayed byte for byte as `sse`.
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMED_EVENTS = {"anthropic-messages", "openai-responses"}


def read_source(sources_dir, entry):
    source = json.loads((Path(sources_dir) / f"{entry['name']}.json").read_text())
    for key, field in (("repository", "repo"), ("path", "path"), ("commit", "commit")):
        if source[field] != entry[key]:
            raise SystemExit(f"{entry['name']}: the source's {field} is {source[field]!r}, the manifest says {entry[key]!r}")
    return source["text"]


def events_of(entry, text):
    if entry["framing"] == "vcr-yaml":
        import yaml

        interaction = yaml.safe_load(text)["interactions"][entry["interaction"]]
        body = interaction["response"]["body"]
        return events_of({**entry, "framing": "sse"}, body.get("string", body.get("content")))
    if entry["framing"] == "sse":
        body = text.rstrip("\n") + "\n\n"
        return [{"raw": body}]
    if entry["framing"] != "jsonl":
        raise SystemExit(f"{entry['name']}: unknown framing {entry['framing']!r}")
    events = []
    for line in text.splitlines():
        if not line.strip():
            continue
        event = {"data": line}
        if entry["api"] in NAMED_EVENTS:
            event = {"event": json.loads(line)["type"], "data": line}
        events.append(event)
    if entry["api"] == "openai-completions":
        events.append({"data": "[DONE]"})
    return events


def fixture_of(entry, text):
    model = {"provider": entry["provider"], "id": entry["modelId"]}
    return {
        "api": entry["api"],
        "description": f"Captured {entry['provider']} stream: {entry['repository']} {entry['path']}",
        "model": model,
        "context": {"messages": [{"role": "user", "content": "Hello", "timestamp": 0}]},
        "options": {},
        "responses": [
            {"status": 200, "events": events_of(entry, text), "chunk_bytes": 61, "delay_ms": 0}
        ],
    }


def main(argv):
    if len(argv) != 1:
        raise SystemExit("usage: import_captures.py SOURCES_DIR")
    manifest = json.loads((HERE / "manifest.json").read_text())
    for entry in manifest["captures"]:
        text = read_source(argv[0], entry)
        out = HERE / "fixtures" / entry["api"] / f"{entry['name']}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(fixture_of(entry, text), ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {len(manifest['captures'])} fixtures")


if __name__ == "__main__":
    main(sys.argv[1:])
