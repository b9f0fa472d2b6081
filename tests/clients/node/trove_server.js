'use strict';
/*
 * trove_server.js — starts and stops `trove serve` for the Node client
 * tests: a private server on 127.0.0.1 and a free port (extra arguments
 * appended, e.g. --tls-cert), its URL read from the "listening on" line it
 * logs on stderr (http or https); stopped with SIGTERM (SIGKILL after 20 s),
 * resolving with its exit code and signal.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TROVE_BIN = path.resolve(ROOT, process.env.TROVE_BIN || path.join('build', 'trove'));

function startTrove(args = []) {
  return new Promise((resolve, reject) => {
    if (!fs.existsSync(TROVE_BIN)) {
      reject(new Error(`no trove binary at ${TROVE_BIN} (set TROVE_BIN)`));
      return;
    }
    const proc = spawn(TROVE_BIN, ['serve', '--host', '127.0.0.1', '--port', '0', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`trove serve did not start within 10 s: ${log}`));
    }, 10000);
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk) => {
      log += chunk;
      const m = /listening on (https?:\/\/\S+)/.exec(log);
      if (m && timer) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], log: () => log });
      }
    });
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`trove serve exited early (${code ?? signal}): ${log}`));
    });
  });
}

function stopTrove(server) {
  return new Promise((resolve) => {
    if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
      resolve({ code: server.proc.exitCode, signal: server.proc.signalCode });
      return;
    }
    const timer = setTimeout(() => server.proc.kill('SIGKILL'), 20000);
    server.proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
    server.proc.kill('SIGTERM');
  });
}

module.exports = { startTrove, stopTrove, TROVE_BIN, ROOT };
