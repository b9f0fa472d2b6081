/*
 * trove fixture helper for Node test suites (ESM, no dependencies, Node 18+).
 *
 *   import { TroveServer } from 'trove-fixture';
 *   const server = await TroveServer.start({ seed: 'tests/fixtures/seed/items' });
 *   const clone = await server.clone();      // { id, url, close() }
 *   await server.withClone(async (url) => { ... });
 *   await server.close();
 *
 * What it does: spawns `trove serve --port 0 --ready-json --parent-pid <our pid>`
 * with one `--seed` per seed path, and waits for the single JSON ready line on
 * stdout ({"url","pid","version","indices"}). stderr is collected (bounded) so a
 * failed start-up rejects with the server's own message (a bad seed names the
 * file, the line and OpenSearch's reason). Clones are made and deleted through
 * the management API (POST/DELETE /_trove/clones) with the global fetch.
 *
 * Shutdown: the server exits when its stdin reaches EOF, so close() ends stdin
 * first and waits; after a grace period it sends SIGTERM, then SIGKILL. Because
 * of --parent-pid (and stdin EOF when our process dies) a crashed test run
 * leaves no server behind.
 *
 * Rejected: parsing the "listening on" stderr line (not a contract); an HTTP
 * client dependency (fetch is global since Node 18); a shared singleton server
 * (tests choose their own lifetime; Symbol.asyncDispose covers `await using`).
 */
import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';

const DEFAULT_START_TIMEOUT_MS = 10000;
const DEFAULT_CLOSE_TIMEOUT_MS = 3000;
const STDERR_LIMIT = 64 * 1024;

// Symbol.asyncDispose exists from Node 20.4 / 18.18 (and in TS downlevel
// polyfills); fall back to Symbol.for so the method still has a stable key.
const asyncDispose = Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose');

/** Error thrown when the server cannot be started or a management call fails. */
export class TroveError extends Error {
  constructor(message, { stderr = '', status, body } = {}) {
    super(message);
    this.name = 'TroveError';
    this.stderr = stderr;
    if (status !== undefined) this.status = status;
    if (body !== undefined) this.body = body;
  }
}

async function isExecutable(file) {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The trove binary: the option, then $TROVE_BIN, then `trove` on PATH. */
async function findBinary(binary) {
  const chosen = binary ?? process.env.TROVE_BIN;
  if (chosen) {
    const resolved = path.resolve(chosen);
    if (!(await isExecutable(resolved))) {
      throw new TroveError(`trove binary not found or not executable: ${resolved}`);
    }
    return resolved;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'trove');
    if (await isExecutable(candidate)) return candidate;
  }
  throw new TroveError('trove binary not found: pass {binary}, set TROVE_BIN, or put trove on PATH');
}

function seedList(seed) {
  if (seed === undefined || seed === null) return [];
  return (Array.isArray(seed) ? seed : [seed]).map((s) => path.resolve(String(s)));
}

async function readBody(res) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function delay(ms) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref?.();
  });
}

/** A clone of the server: its own node on its own port. */
export class TroveClone {
  #server;
  #closed = false;

  constructor(server, id, url) {
    this.#server = server;
    this.id = id;
    this.url = url;
  }

  /** Deletes the clone (idempotent; a clone already gone is not an error). */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#server._forget(this);
    if (this.#server.exited || this.#server.closing) return; // the clone dies with the server
    const res = await fetch(`${this.#server.url}/_trove/clones/${encodeURIComponent(this.id)}`, {
      method: 'DELETE',
    });
    const body = await readBody(res);
    if (!res.ok && res.status !== 404) {
      throw new TroveError(`DELETE /_trove/clones/${this.id} failed with ${res.status}`, {
        status: res.status,
        body,
      });
    }
  }

  async [asyncDispose]() {
    await this.close();
  }
}

export class TroveServer {
  #child;
  #exitPromise;
  #exited = false;
  #stderrRef;
  #clones = new Set();
  #closing = null;

  constructor(child, ready, exitPromise, stderrRef) {
    this.#child = child;
    this.#exitPromise = exitPromise;
    this.#stderrRef = stderrRef;
    this.url = ready.url;
    this.pid = ready.pid;
    this.version = ready.version;
    this.indices = ready.indices ?? [];
    exitPromise.then(() => {
      this.#exited = true;
    });
  }

  /** What the server wrote on stderr so far (bounded to the last 64 KiB). */
  get stderr() {
    return this.#stderrRef.text;
  }

  /** True once close() was called. */
  get closing() {
    return this.#closing !== null;
  }

  /** True once the server process has exited. */
  get exited() {
    return this.#exited;
  }

  /**
   * Starts `trove serve` and resolves once it printed its ready line.
   * Options: seed (path or array of paths), binary, freeze (boolean),
   * args (extra command-line arguments), timeout (ms, default 10 s),
   * env (extra environment variables).
   */
  static async start({ seed, binary, freeze = false, args = [], timeout = DEFAULT_START_TIMEOUT_MS, env } = {}) {
    const bin = await findBinary(binary);
    const argv = ['serve', '--port', '0', '--ready-json', '--parent-pid', String(process.pid)];
    for (const s of seedList(seed)) argv.push('--seed', s);
    if (freeze) argv.push('--freeze');
    argv.push(...args);

    const child = spawn(bin, argv, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: env ? { ...process.env, ...env } : process.env,
    });
    const stderrRef = { text: '' };
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      stderrRef.text += chunk;
      if (stderrRef.text.length > STDERR_LIMIT) stderrRef.text = stderrRef.text.slice(-STDERR_LIMIT);
    });
    // A write to a closed stdin (server already gone) must not crash the test run.
    child.stdin.on('error', () => {});

    const exitPromise = new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (err) => resolve({ code: null, signal: null, error: err }));
    });
    const stderrClosed = new Promise((resolve) => child.stderr.once('close', resolve));

    let ready;
    try {
      ready = await readReadyLine(child, exitPromise, timeout);
    } catch (err) {
      // Collect the whole stderr of a dead server (bounded wait) for the message.
      child.stdin.end();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await Promise.race([Promise.all([exitPromise, stderrClosed]), delay(1000)]);
      const stderr = stderrRef.text.trim();
      throw new TroveError(`${err.message}${stderr ? `: ${stderr}` : ''}`, { stderr });
    }
    // The ready line is the only stdout output; drain anything else.
    child.stdout.resume();
    return new TroveServer(child, ready, exitPromise, stderrRef);
  }

  /** Creates a clone (POST /_trove/clones); the base becomes frozen. */
  async clone() {
    if (this.#exited || this.#closing) throw new TroveError('trove server is closed');
    const res = await fetch(`${this.url}/_trove/clones`, { method: 'POST' });
    const body = await readBody(res);
    if (res.status !== 201 && res.status !== 200) {
      throw new TroveError(`POST /_trove/clones failed with ${res.status}: ${JSON.stringify(body)}`, {
        status: res.status,
        body,
        stderr: this.stderr,
      });
    }
    const clone = new TroveClone(this, body.id, body.url);
    this.#clones.add(clone);
    return clone;
  }

  /** Runs fn(url) against a fresh clone and deletes the clone afterwards. */
  async withClone(fn) {
    const clone = await this.clone();
    try {
      return await fn(clone.url, clone);
    } finally {
      await clone.close();
    }
  }

  _forget(clone) {
    this.#clones.delete(clone);
  }

  /**
   * Stops the server: ends its stdin and waits; after `timeout` ms sends
   * SIGTERM, after another `timeout` ms SIGKILL. Resolves with {code, signal}.
   * Idempotent.
   */
  close({ timeout = DEFAULT_CLOSE_TIMEOUT_MS } = {}) {
    if (!this.#closing) this.#closing = this.#stop(timeout);
    return this.#closing;
  }

  async #stop(timeout) {
    this.#clones.clear(); // the clones die with the server
    const child = this.#child;
    child.stdin.end();
    const wait = (ms) => Promise.race([this.#exitPromise, delay(ms).then(() => null)]);
    let result = await wait(timeout);
    if (result === null) {
      child.kill('SIGTERM');
      result = await wait(timeout);
    }
    if (result === null) {
      child.kill('SIGKILL');
      result = await this.#exitPromise;
    }
    return result;
  }

  async [asyncDispose]() {
    await this.close();
  }
}

function readReadyLine(child, exitPromise, timeout) {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let done = false;
    const finish = (fn, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      fn(value);
    };
    const timer = setTimeout(
      () => finish(reject, new Error(`trove serve printed no ready line within ${timeout} ms`)),
      timeout,
    );
    const onData = (chunk) => {
      buffered += chunk;
      const nl = buffered.indexOf('\n');
      if (nl < 0) return;
      const line = buffered.slice(0, nl).trim();
      let ready;
      try {
        ready = JSON.parse(line);
      } catch {
        finish(reject, new Error(`trove serve printed a ready line that is not JSON: ${line}`));
        return;
      }
      if (!ready || typeof ready.url !== 'string') {
        finish(reject, new Error(`trove serve printed a ready line without a url: ${line}`));
        return;
      }
      finish(resolve, ready);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    exitPromise.then(({ code, signal, error }) => {
      if (error) finish(reject, new Error(`cannot run trove serve: ${error.message}`));
      else finish(reject, new Error(`trove serve exited (${signal ?? `status ${code}`}) before it was ready`));
    });
  });
}

export default TroveServer;
