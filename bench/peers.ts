/**
 * The peers benchmarks compare with that are npm packages but no dependency of Assay (Prism,
 * Mockoon's CLI): installed on demand with npm into `$ASSAY_CACHE/peers/<name>-<version>` (default
 * ~/.cache/assay/peers), once, at a pinned version, never into package.json. Started as child
 * processes on loopback and stopped by their process id.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** A peer package: its npm name, pinned version, and the binary it puts in `node_modules/.bin`. */
export interface Peer {
  name: string;
  version: string;
  bin: string;
}

/** Stoplight Prism, the OpenAPI mock server (https://docs.stoplight.io/docs/prism). */
export const PRISM: Peer = { name: '@stoplight/prism-cli', version: '5.16.0', bin: 'prism' };
/** Mockoon's CLI, whose environments have data buckets and CRUD routes (https://mockoon.com/docs/latest/). */
export const MOCKOON: Peer = { name: '@mockoon/cli', version: '9.9.0', bin: 'mockoon-cli' };

/** Where a peer is installed: `$ASSAY_CACHE/peers/<name without @, / as ->-<version>` (`mockoon-cli-9.9.0`). */
export function peerDir(peer: Peer): string {
  const cache = process.env.ASSAY_CACHE || path.join(os.homedir(), '.cache/assay');
  return path.join(cache, 'peers', `${peer.name.replace(/^@/, '').replace(/\//g, '-')}-${peer.version}`);
}

/** The peer's binary, installing the package with npm first when it is missing. */
export async function ensurePeer(peer: Peer, log: (m: string) => void = () => undefined): Promise<string> {
  const dir = peerDir(peer);
  const bin = path.join(dir, 'node_modules/.bin', peer.bin);
  if (fs.existsSync(bin)) return bin;
  log(`installing ${peer.name}@${peer.version} into ${dir} (npm, once)`);
  fs.mkdirSync(dir, { recursive: true });
  await promisify(execFile)(
    'npm',
    ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', `${peer.name}@${peer.version}`],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  if (!fs.existsSync(bin)) throw new Error(`npm installed ${peer.name} but ${bin} is missing`);
  return bin;
}

/** A started peer: its process, and `stop()` that ends it (SIGTERM, then SIGKILL after 3 s). */
export interface RunningPeer {
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `bin args` and waits until `probe` answers (any HTTP status) within `timeoutMs`; its
 * output is discarded (both peers log each request; the figures include that default cost).
 */
export async function startPeer(bin: string, args: string[], probe: string, timeoutMs = 60_000): Promise<RunningPeer> {
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(t);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${path.basename(bin)} exited (${child.exitCode}): ${stderr}`);
    try {
      await fetch(probe, { signal: AbortSignal.timeout(1000) });
      return { child, stop };
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${path.basename(bin)} did not answer at ${probe} within ${timeoutMs} ms: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
