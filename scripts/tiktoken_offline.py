"""Write tiktoken's o200k_base ranks into an offline cache, from the npm package
js-tiktoken (the same ranks, in its own compact layout).

Inspect AI counts tokens with tiktoken's o200k_base (its mockllm model does so for every
reply), and tiktoken downloads that file from a host the machines here cannot reach.
The file written here is byte-identical to the one tiktoken would download: it is
checked against the SHA-256 tiktoken pins, and tiktoken checks it again on every load.

    python scripts/tiktoken_offline.py JS_TIKTOKEN_DIR CACHE_DIR
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def tiktoken_file(js_tiktoken: Path) -> bytes:
    source = (js_tiktoken / "dist" / "ranks" / "o200k_base.cjs").read_text()
    data = json.loads(source[source.index("{"):source.rindex("}") + 1])
    ranks: dict[str, int] = {}
    for line in data["bpe_ranks"].split("\n"):
        # "<label> <first rank> <base64 token> <base64 token> ..."
        parts = line.split(" ")
        if len(parts) < 3:
            continue
        first = int(parts[1])
        for offset, token in enumerate(parts[2:]):
            ranks[token] = first + offset
    return "".join(f"{token} {rank}\n" for token, rank in
                   sorted(ranks.items(), key=lambda item: item[1])).encode()


def main() -> int:
    js_tiktoken, cache = Path(sys.argv[1]), Path(sys.argv[2])
    content = tiktoken_file(js_tiktoken)
    if hashlib.sha256(content).hexdigest() != SHA256:
        print("tiktoken_offline: the converted ranks do not match tiktoken's pinned hash",
              file=sys.stderr)
        return 1
    cache.mkdir(parents=True, exist_ok=True)
    (cache / hashlib.sha1(URL.encode()).hexdigest()).write_bytes(content)
    return 0


if __name__ == "__main__":
    sys.exit(main())
