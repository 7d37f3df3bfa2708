#!/usr/bin/env bash
# Installs everything stripebench needs on a fresh Debian machine: system packages
# (Chromium, bubblewrap, Ruby, a JDK and Maven), the Python environment in .venv/, the npm
# packages the tests and tasks use, and offline caches of stripe-java and stripe-go. Safe
# to run again; it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
# Ruby: the routing tests prove a Ruby script reaches the emulator unmodified.
command -v ruby >/dev/null 2>&1 || need_apt+=(ruby)
# A JDK and Maven: the stripe-java tests (Go comes with the machine: Debian's is too old).
command -v javac >/dev/null 2>&1 || need_apt+=(default-jdk-headless)
command -v mvn >/dev/null 2>&1 || need_apt+=(maven)
# PostgreSQL: the saas-* tasks' app runs its own cluster in each trial.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q --upgrade pip >/dev/null
.venv/bin/pip install -q -e ".[dev]"

# npm packages, the agent CLIs among them: Claude Code (its native binary comes from a
# platform package, put in place by its postinstall) and Codex (a node launcher that runs
# the native binary of @openai/codex-linux-x64 etc.). --prefer-offline: once the cache
# holds them, setting up again needs no network (`npm ci --offline` works too).
if [ -f package.json ]; then
  npm install --prefer-offline --silent --no-audit --no-fund >/dev/null
fi

# The docs index: the API reference is generated here from the installed stripe SDK (and
# regenerated whenever the SDK or the guides change), so the first search is instant.
.venv/bin/stripebench docs build >/dev/null

# Old SDK majors for the API-version tests and the SDK-upgrade tasks, each in its own
# directory (PYTHONPATH=.old-sdks/stripe7, require('.old-sdks/node10/node_modules/stripe')).
old_py() { [ -d ".old-sdks/$1/stripe" ] || .venv/bin/pip install -q --target ".old-sdks/$1" "$2"; }
old_py stripe5 'stripe==5.*'
old_py stripe7 'stripe==7.*'
if [ ! -d .old-sdks/node10/node_modules/stripe ]; then
  npm install --silent --no-audit --no-fund --prefix .old-sdks/node10 'stripe@10' >/dev/null
fi

# The offline wheelhouse of the SDK-upgrade tasks: a trial installs its requirements with
# `pip install --no-index --find-links "$STRIPEBENCH_WHEELHOUSE"`, never from a registry.
wheelhouse=.cache/wheelhouse
for pin in 'stripe==5.5.0' 'stripe==16.1.0'; do
  compgen -G "$wheelhouse/stripe-${pin#stripe==}-*.whl" >/dev/null ||
    .venv/bin/pip download -q --only-binary=:all: --dest "$wheelhouse" "$pin" >/dev/null
done

# stripe-java and stripe-go, current and old majors, for tests/test_java_sdk.py and
# tests/test_go_sdk.py: Maven artifacts into the project's own repository .cache/m2, Go
# modules into .cache/go, so the tests build offline (`mvn -o`, GOPROXY=off). A pom is
# resolved again only when it changed (its classpath file is older than it).
root=$PWD
for pom in tests/sdk_programs/java/*/pom.xml; do
  classpath=".cache/m2/$(basename "$(dirname "$pom")").classpath"
  [ "$classpath" -nt "$pom" ] ||
    mvn -B -q -Dmaven.repo.local="$root/.cache/m2" -f "$pom" dependency:build-classpath \
      -Dmdep.outputFile="$root/$classpath" >/dev/null
done
if command -v go >/dev/null 2>&1; then
  for module in tests/sdk_programs/go/*/; do
    # Also compiles the SDK once into the project's build cache (stripe-go v85 alone takes
    # a minute or more on two cores), so the tests' own builds start warm.
    (cd "$module" && export GOMODCACHE="$root/.cache/go" GOCACHE="$root/.cache/go-build" \
       GOFLAGS=-mod=mod && go mod download && go build -o /dev/null .)
  done
else
  echo "setup: no Go toolchain; the stripe-go tests (tests/test_go_sdk.py) need one" >&2
fi

# The offline npm cache (the npm twin of the wheelhouse) of the Node SDK-upgrade task: a
# trial installs its package.json with `npm install --offline` from a copy of
# $STRIPEBENCH_NPM_CACHE, never from a registry. Filled by installing each lockfile the
# task ships (the starter's stripe 10 and the upgrade's stripe 23, with express).
npm_cache="$PWD/.cache/npm"
for project in tasks/sdk-upgrade-node/environment tasks/sdk-upgrade-node/solution \
    tasks/saas-embedded-checkout/environment tasks/saas-embedded-checkout/solution/app; do
  stamp="$npm_cache/.filled-$(cat "$project/package.json" "$project/package-lock.json" |
    sha256sum | cut -c1-16)"
  [ -f "$stamp" ] && continue
  scratch="$(mktemp -d)"
  cp "$project/package.json" "$project/package-lock.json" "$scratch/"
  # ci caches the locked tarballs; resolving again without the lockfile caches the
  # packuments `npm install --offline` needs to re-resolve a changed package.json.
  (cd "$scratch" && npm ci --silent --no-audit --no-fund --cache "$npm_cache" >/dev/null &&
    rm -rf node_modules package-lock.json &&
    npm install --silent --package-lock-only --no-audit --no-fund --cache "$npm_cache" >/dev/null)
  rm -rf "$scratch"
  touch "$stamp"
done
# `npm install <name>@<version>` reads the named package's full packument.
[ -f "$npm_cache/.filled-top" ] || {
  npm cache add --silent --cache "$npm_cache" express@4.22.3 stripe@10.17.0 stripe@23.1.0 &&
    touch "$npm_cache/.filled-top"; }
# What the saas-* tasks' agents add to the Next.js app (embedded Checkout's React bindings).
[ -f "$npm_cache/.filled-saas" ] || {
  npm cache add --silent --cache "$npm_cache" @stripe/react-stripe-js@7.0.1 \
    @stripe/stripe-js@10.2.1 && touch "$npm_cache/.filled-saas"; }
