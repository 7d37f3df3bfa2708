#!/usr/bin/env bash
# Installs everything stripebench needs on a fresh Debian machine: system packages
# (Chromium, bubblewrap, Ruby, a JDK and Maven, g++), the Python environment in .venv/, the npm
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
# A C++ toolchain: better-sqlite3's native module is built from source once (see the npm
# cache below).
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
command -v make >/dev/null 2>&1 || need_apt+=(make)
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

# Inspect AI (a dev dependency) counts tokens with tiktoken's o200k_base ranks, which
# tiktoken downloads from a host these machines cannot reach: the same ranks come from
# the npm package js-tiktoken, converted and checked against tiktoken's pinned hash.
if [ -z "$(ls -A .cache/tiktoken 2>/dev/null)" ]; then
  scratch="$(mktemp -d)"
  (cd "$scratch" && npm pack --silent js-tiktoken@1.0.21 >/dev/null && tar xzf js-tiktoken-*.tgz)
  .venv/bin/python scripts/tiktoken_offline.py "$scratch/package" .cache/tiktoken
  rm -rf "$scratch"
fi

# Harbor (the Terminal-Bench 2 harness) needs Python >= 3.12: its own venv, .venv-harbor,
# checks the tasks `stripebench export harbor` writes (tests/integrations/test_harbor_export.py).
harbor_pin='harbor==0.26.0'
if ! .venv-harbor/bin/pip show harbor 2>/dev/null | grep -qx "Version: ${harbor_pin#harbor==}"; then
  python312=""
  for candidate in python3.12 python3.13 python3.14 \
      "$(pyenv root 2>/dev/null)"/versions/3.1[2-9]*/bin/python3; do
    if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      python312="$candidate"; break
    fi
  done
  if [ -z "$python312" ]; then
    echo "setup: Harbor needs Python 3.12 or newer and none was found (tried python3.12," \
         "python3.13, python3.14 and pyenv's versions); install one, e.g." \
         "'pyenv install 3.12', then run setup again" >&2
    exit 1
  fi
  [ -x .venv-harbor/bin/python ] || "$python312" -m venv .venv-harbor
  .venv-harbor/bin/pip install -q --upgrade pip >/dev/null
  .venv-harbor/bin/pip install -q "$harbor_pin"
fi

# The docs index: the API reference is generated here from the installed stripe SDK (and
# regenerated whenever the SDK or the guides change), so the first search is instant.
.venv/bin/stripebench docs build >/dev/null

# Old SDK majors for the API-version tests and the SDK-upgrade tasks, each in its own
# directory (PYTHONPATH=.old-sdks/stripe7, require('.old-sdks/node10/node_modules/stripe')).
# --no-warn-conflicts: pip would compare these folders with the venv's own packages and
# print "ERROR: pip's dependency resolver ..." about stripe 5 and 7 beside stripe 16; they
# are never on one path together, so that is no error: one line says what was installed.
old_py() {
  [ -d ".old-sdks/$1/stripe" ] && return
  .venv/bin/pip install -q --no-warn-conflicts --disable-pip-version-check \
    --target ".old-sdks/$1" "$2" >/dev/null
  echo "setup: installed $(ls -d .old-sdks/"$1"/stripe-*.dist-info | sed 's/.*stripe-//; s/.dist-info//' |
    sed 's/^/stripe /') in .old-sdks/$1 (an old SDK for the API-version tests)"
}
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

# Ray, for `stripebench run --executor ray`: its wheel and dependencies kept in a folder
# of their own (not the trials' wheelhouse, whose packages tasks resolve against), so
# setting up again installs it offline.
ray_wheels=.cache/wheelhouse/ray
compgen -G "$ray_wheels/ray-2.60.0-*.whl" >/dev/null ||
  .venv/bin/pip download -q --only-binary=:all: --dest "$ray_wheels" 'ray==2.60.0' >/dev/null
.venv/bin/python -c "import importlib.metadata as m; assert m.version('ray') == '2.60.0'" \
  2>/dev/null || .venv/bin/pip install -q --no-index --find-links "$ray_wheels" 'ray==2.60.0'

# stripe-java and stripe-go, current and old majors, for the tests in tests/emulator/sdks/
# (test_java_sdk.py, test_go_sdk.py): Maven artifacts into the project's own repository
# .cache/m2, Go modules into .cache/go, so the tests build offline (`mvn -o`, GOPROXY=off). A pom is
# resolved again only when it changed (its classpath file is older than it).
root=$PWD
for pom in tests/sdk_programs/java/*/pom.xml; do
  classpath=".cache/m2/$(basename "$(dirname "$pom")").classpath"
  [ "$classpath" -nt "$pom" ] ||
    mvn -B -q -Dmaven.repo.local="$root/.cache/m2" -f "$pom" dependency:build-classpath \
      -Dmdep.outputFile="$root/$classpath" >/dev/null
done
# The Java SDK-upgrade task's Maven project as its starter (stripe-java 20) and its
# upgrade (stripe-java 33) build it: clean, compile, package and copy-dependencies with
# every plugin they use, so a trial's `mvn -o` (against a copy of .cache/m2) finds all.
for project in tasks/sdk-upgrade-java/environment tasks/sdk-upgrade-java/solution; do
  stamp=".cache/m2/.filled-$(sha256sum < "$project/pom.xml" | cut -c1-16)"
  [ -f "$stamp" ] && continue
  scratch="$(mktemp -d)"
  cp -R "$project/pom.xml" "$project/src" "$scratch/"
  mvn -B -q -Dmaven.repo.local="$root/.cache/m2" -f "$scratch/pom.xml" clean package \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=target/lib >/dev/null
  rm -rf "$scratch"
  touch "$stamp"
done
if command -v go >/dev/null 2>&1; then
  for module in tests/sdk_programs/go/*/; do
    # Also compiles the SDK once into the project's build cache (stripe-go v85 alone takes
    # a minute or more on two cores), so the tests' own builds start warm.
    (cd "$module" && export GOMODCACHE="$root/.cache/go" GOCACHE="$root/.cache/go-build" \
       GOFLAGS=-mod=mod && go mod download && go build -o /dev/null .)
  done
  # The sdk-upgrade-go task's module, as it starts (v72) and as it ends (v85): tidied in
  # a scratch copy, so its builds and a trial's `go mod tidy` (which also wants the SDKs'
  # test dependencies) work offline.
  for module in tasks/sdk-upgrade-go/environment tasks/sdk-upgrade-go/solution; do
    scratch="$(mktemp -d)"
    cp -R "$module/." "$scratch/"
    out="$(cd "$scratch" && GOMODCACHE="$root/.cache/go" GOFLAGS=-mod=mod \
      GOTOOLCHAIN=local go mod tidy 2>&1)" || { echo "$out" >&2; exit 1; }
    rm -rf "$scratch"
  done
else
  echo "setup: no Go toolchain; the stripe-go tests" \
       "(tests/emulator/sdks/test_go_sdk.py) need one" >&2
fi

# The offline npm cache (the npm twin of the wheelhouse) of the Node tasks: a trial
# installs its package.json with `npm install --offline` from a copy of
# $STRIPEBENCH_NPM_CACHE, never from a registry. Filled by installing each lockfile the
# tasks ship (sdk-upgrade-node's stripe 10 and 23; the tour tasks' stripe 8 and 18 with
# better-sqlite3), scripts off: only the tarballs are wanted here.
npm_cache="$PWD/.cache/npm"
for project in tasks/sdk-upgrade-node/environment tasks/sdk-upgrade-node/solution \
    tasks/bookings-migration/environment tasks/invoicing-migration/environment \
    tasks/saas-embedded-checkout/environment tasks/saas-embedded-checkout/solution/app; do
  stamp="$npm_cache/.filled-$(cat "$project/package.json" "$project/package-lock.json" |
    sha256sum | cut -c1-16)"
  [ -f "$stamp" ] && continue
  scratch="$(mktemp -d)"
  cp "$project/package.json" "$project/package-lock.json" "$scratch/"
  # ci caches the locked tarballs; resolving again without the lockfile caches the
  # packuments `npm install --offline` needs to re-resolve a changed package.json.
  (cd "$scratch" && npm ci --silent --ignore-scripts --no-audit --no-fund --cache "$npm_cache" >/dev/null &&
    rm -rf node_modules package-lock.json &&
    npm install --silent --package-lock-only --ignore-scripts --no-audit --no-fund \
      --cache "$npm_cache" >/dev/null)
  rm -rf "$scratch"
  touch "$stamp"
done
# `npm install <name>@<version>` reads the named package's full packument.
[ -f "$npm_cache/.filled-top" ] || {
  npm cache add --silent --cache "$npm_cache" express@4.22.3 stripe@10.17.0 stripe@23.1.0 &&
    touch "$npm_cache/.filled-top"; }

# better-sqlite3's native module: its install script fetches a prebuilt binary from GitHub
# (which neither this machine nor a trial reaches), else compiles it with node-gyp, which
# downloads Node's headers. Built here once from source against the headers the installed
# node ships (<prefix>/include/node, via nodedir), then packed where prebuild-install looks
# before any download (<npm cache>/_prebuilds/<digest of its URL>-<name>.tar.gz): a trial's
# offline install finds it in its copy of the cache and compiles nothing.
sqlite_version=12.9.0
stamp="$npm_cache/.prebuilt-better-sqlite3-$sqlite_version-$(node -p process.versions.modules)"
if [ ! -f "$stamp" ]; then
  scratch="$(mktemp -d)"
  node_prefix="$(dirname "$(dirname "$(node -p process.execPath)")")"
  (cd "$scratch" && echo '{"private": true}' > package.json &&
    npm_config_build_from_source=true npm_config_nodedir="$node_prefix" \
      npm install --silent --no-audit --no-fund --cache "$npm_cache" \
      "better-sqlite3@$sqlite_version" >/dev/null &&
    cd node_modules/better-sqlite3 && archive="$(npm_config_cache="$npm_cache" node -e '
      const util = require("prebuild-install/util");
      const pkg = require("./package.json");
      const rc = require("prebuild-install/rc")(pkg);
      console.log(util.cachedPrebuild(util.getDownloadUrl({...rc, pkg})));')" &&
    mkdir -p "$(dirname "$archive")" &&
    tar -czf "$archive" build/Release/better_sqlite3.node)
  rm -rf "$scratch"
  touch "$stamp"
fi

# What the saas-* tasks' agents add to the Next.js app (embedded Checkout's React bindings).
[ -f "$npm_cache/.filled-saas" ] || {
  npm cache add --silent --cache "$npm_cache" @stripe/react-stripe-js@7.0.1 \
    @stripe/stripe-js@10.2.1 && touch "$npm_cache/.filled-saas"; }
