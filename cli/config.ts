/**
 * Where the `assay` command line finds the service and its key (docs/cli.md "Configuration"),
 * highest first:
 *
 * 1. flags `--url` and `--api-key`;
 * 2. environment variables `ASSAY_URL` and `ASSAY_API_KEY`;
 * 3. a JSON config file `{ "url": "…", "apiKey": "…" }`: `--config FILE`, else `ASSAY_CONFIG`,
 *    else `.assay.json` in the working directory, else `$XDG_CONFIG_HOME/assay/config.json`
 *    (`~/.config/assay/config.json`). Keep keys out of files in git: prefer `ASSAY_API_KEY`.
 *
 * The URL defaults to `http://127.0.0.1:8080` (what `make dev` serves); the key has no default.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './errors';

export interface CliSettings {
  url: string;
  apiKey: string | undefined;
  /** The config file read, when one was. */
  configFile?: string;
}

export interface SettingsSources {
  flags: { url?: string; apiKey?: string; config?: string };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

function readConfigFile(file: string, explicit: boolean): { url?: string; apiKey?: string } | undefined {
  if (!fs.existsSync(file)) {
    if (explicit) throw new UsageError(`config file ${file} does not exist`);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`config file ${file} must hold a JSON object like {"url": "…", "apiKey": "…"}`);
  const { url, apiKey } = parsed as Record<string, unknown>;
  if (url !== undefined && typeof url !== 'string') throw new UsageError(`config file ${file}: "url" must be a string`);
  if (apiKey !== undefined && typeof apiKey !== 'string')
    throw new UsageError(`config file ${file}: "apiKey" must be a string`);
  return { url, apiKey };
}

/** Resolves the settings; @throws UsageError for an unreadable config file or a malformed URL. */
export function resolveSettings({ flags, env, cwd }: SettingsSources): CliSettings {
  const explicit = flags.config ?? env.ASSAY_CONFIG;
  const candidates = explicit
    ? [path.resolve(cwd, explicit)]
    : [
        path.join(cwd, '.assay.json'),
        path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'assay', 'config.json'),
      ];
  let file: { url?: string; apiKey?: string } | undefined;
  let configFile: string | undefined;
  for (const candidate of candidates) {
    file = readConfigFile(candidate, Boolean(explicit));
    if (file) {
      configFile = candidate;
      break;
    }
  }
  const url = flags.url || env.ASSAY_URL || file?.url || DEFAULT_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new UsageError(
      `the Assay URL "${url}" is not an http(s) address (set --url or ASSAY_URL, e.g. http://127.0.0.1:8080)`,
    );
  }
  return {
    url: url.replace(/\/+$/, '').replace(/\/v1$/, ''),
    apiKey: flags.apiKey || env.ASSAY_API_KEY || file?.apiKey || undefined,
    configFile,
  };
}
