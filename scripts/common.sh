# Shared by scripts/run and scripts/test (sourced, not run). Sets ROOT and PY, and defines the
# set-up steps and the embedded Redis. Needs only a Python >= 3.10 (3.11 here) on the machine.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

log() { printf '[%s] %s\n' "$(basename "$0")" "$*"; }
die() { printf '[%s] error: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }

# Create .venv if missing and install requirements.txt when it changed since the last install.
setup_venv() {
  if [ ! -x "$PY" ]; then
    local base=""
    for candidate in python3.11 python3.12 python3.13 python3 python; do
      if command -v "$candidate" >/dev/null 2>&1 &&
         "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
        base="$candidate"; break
      fi
    done
    [ -n "$base" ] || die "Python 3.10 or newer (3.11 recommended) is needed to create .venv"
    log "creating virtualenv .venv with $base"
    "$base" -m venv "$VENV" || die "could not create .venv (on Debian: apt-get install python3-venv)"
  fi
  local stamp="$VENV/.requirements.sha256" want have=""
  want="$(cat requirements.txt requirements.lock | sha256sum | cut -d' ' -f1)"
  [ -f "$stamp" ] && have="$(cat "$stamp")"
  if [ "$want" != "$have" ]; then
    # requirements.txt names what the site uses; requirements.lock pins everything it
    # brings in (scripts/lock), so every machine gets the versions the tests ran with
    log "installing requirements.txt (versions of requirements.lock) into .venv"
    "$PY" -m pip install --quiet --upgrade pip || die "pip upgrade failed"
    "$PY" -m pip install --quiet -r requirements.txt -c requirements.lock ||
      die "pip install -r requirements.txt -c requirements.lock failed"
    echo "$want" > "$stamp"
  fi
  export PATH="$VENV/bin:$PATH"
}

compile_messages() {
  "$PY" -m nardy_site.compilemessages || die "compiling translations failed"
}

# Start an embedded Redis when REDIS_URL is not set; sets REDIS_PID (empty if not started)
# and exports REDIS_URL. The caller stops it (kill "$REDIS_PID").
REDIS_PID=""
start_embedded_redis_if_needed() {
  if [ -n "${REDIS_URL:-}" ]; then
    log "using REDIS_URL=$REDIS_URL"
    return
  fi
  REDIS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/nardy-redis.XXXXXX")"
  "$PY" -m nardy_site.embedded_redis serve --url-file "$REDIS_DIR/url" --dir "$REDIS_DIR" \
    > "$REDIS_DIR/redis.log" 2>&1 &
  REDIS_PID=$!
  local i
  for i in $(seq 1 100); do
    [ -s "$REDIS_DIR/url" ] && break
    kill -0 "$REDIS_PID" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$REDIS_DIR/url" ] || { cat "$REDIS_DIR/redis.log" >&2; die "embedded Redis did not start"; }
  REDIS_URL="$(cat "$REDIS_DIR/url")"
  if ! "$PY" -m nardy_site.embedded_redis wait "$REDIS_URL" --timeout 15; then
    cat "$REDIS_DIR/redis.log" >&2
    die "embedded Redis did not answer at $REDIS_URL"
  fi
  export REDIS_URL
  log "embedded Redis at $REDIS_URL (pid $REDIS_PID)"
}

# Stop the given PIDs with SIGTERM, then SIGKILL whatever is still alive after $2 seconds.
stop_pids() {
  local pids="$1" grace="${2:-15}" pid alive i
  for pid in $pids; do kill -TERM "$pid" 2>/dev/null || true; done
  for i in $(seq 1 $((grace * 10))); do
    alive=""
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive="$alive $pid"; done
    [ -z "$alive" ] && break
    sleep 0.1
  done
  for pid in $pids; do
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid did not stop in ${grace}s, killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  for pid in $pids; do wait "$pid" 2>/dev/null || true; done
}

stop_embedded_redis() {
  if [ -n "$REDIS_PID" ]; then
    stop_pids "$REDIS_PID" 10
    REDIS_PID=""
    [ -n "${REDIS_DIR:-}" ] && rm -rf "$REDIS_DIR"
  fi
}
