"""Read a release's Stripe.js surface out of @stripe/stripe-js's TypeScript typings.

Each @stripe/stripe-js major targets one Stripe.js release (its loader's RELEASE_TRAIN):
5 -> v3, 6 -> acacia, 7 -> basil, 8 -> clover, 9 -> dahlia, 10 -> endive. The installed
package (node_modules) is read live; older majors were read once into
stripejs_releases.json by running this file on unpacked packages:

    npm pack @stripe/stripe-js@9 && tar xzf stripe-stripe-js-9.*.tgz   (one dir per major)
    python tests/browser/stripejs_typings.py v5/package v6/package ... > stripejs_releases.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def release_train(package: Path) -> str:
    loader = (package / "dist/index.mjs").read_text()
    found = re.search(r"RELEASE_TRAIN = '(\w+)'", loader)
    assert found, f"no RELEASE_TRAIN in {package}"
    return found.group(1)


def methods(package: Path) -> list[str]:
    """The methods the `Stripe` interface declares."""
    text = (package / "dist/stripe-js/stripe.d.ts").read_text()
    body = text[text.index("export interface Stripe {"):]
    body = re.sub(r"/\*.*?\*/", "", body[:body.index("\n}\n")], flags=re.S)
    return sorted(set(re.findall(r"^  (\w+)\s*[(<]", body, flags=re.M)))


def element_types(package: Path) -> list[str]:
    """The `StripeElementType` union: what elements.create() accepts."""
    text = (package / "dist/stripe-js/elements-group.d.ts").read_text()
    found = re.search(r"export type StripeElementType =(.*?);", text, re.S)
    assert found, f"no StripeElementType in {package}"
    return sorted(set(re.findall(r"'(\w+)'", found.group(1))))


def surface(package: Path) -> dict[str, object]:
    version = json.loads((package / "package.json").read_text())["version"]
    return {"package": f"@stripe/stripe-js@{version}", "methods": methods(package),
            "elements": element_types(package)}


if __name__ == "__main__":
    table = {release_train(Path(p)): surface(Path(p)) for p in sys.argv[1:]}
    print("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in table.items())
          + "\n}")
