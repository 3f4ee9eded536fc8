/**
 * Workspace files from the command line (docs/cli.md "Workspace files"; the REST resource
 * `/v1/files`, calls in cli/workspace-files.ts):
 *
 * - `assay files upload PATH [--name NAME] [--type CONTENT-TYPE]` — stores the file's bytes as NAME
 *   (default: PATH's base name) with CONTENT-TYPE (default: guessed from the extension,
 *   cli/workspace-files.ts CONTENT_TYPES, else `application/octet-stream`); prints
 *   `Uploaded NAME: created|replaced (SIZE, TYPE, sha256 HEX)`;
 * - `assay files list [--json]` — one line per file, `NAME<TAB>SIZE IN BYTES<TAB>TYPE<TAB>UPDATED AT`,
 *   or the API's items as a JSON array;
 * - `assay files download NAME [--out PATH]` — the bytes, exactly, to PATH (default: NAME's base
 *   name in the working directory; into it when PATH is a directory; `-`: stdout);
 * - `assay files delete NAME`.
 *
 * Errors: a bad flag or argument, a file that cannot be read or written, or a 4xx answer (404 no
 * such file, 413 `file-too-large`, 429 `quota-exceeded`, 400 naming the field) exit 2 with one
 * line quoting the problem's title and detail; an unreachable or failing service exits 3.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { CliContext, Registrar } from '../context';
import { CliError, EXIT, UsageError, type ExitCode } from '../errors';
import {
  CONTENT_TYPE_PATTERN,
  FILE_NAME_RULE,
  deleteFile,
  downloadFile,
  formatSize,
  guessContentType,
  isFileName,
  listFiles,
  sha256Hex,
  uploadFile,
} from '../workspace-files';

/** A file system error as a usage error naming `what` and the path the user typed. */
function fileError(err: unknown, what: string, shown: string): never {
  const e = err as NodeJS.ErrnoException;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EISDIR: 'it is a directory',
    ENOTDIR: 'a part of the path is not a directory',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
  };
  const reason = e.code ? reasons[e.code] : undefined;
  if (!reason) throw err;
  throw new UsageError(`cannot ${what} ${shown}: ${reason}`);
}

async function runUpload(ctx: CliContext, file: string, flags: { name?: string; type?: string }): Promise<ExitCode> {
  const name = flags.name ?? path.basename(file);
  if (!isFileName(name))
    throw new UsageError(
      `file name "${name}" is not allowed: ${FILE_NAME_RULE}${flags.name === undefined ? ' (pass --name NAME)' : ''}`,
    );
  const contentType = flags.type ?? guessContentType(name);
  if (!CONTENT_TYPE_PATTERN.test(contentType))
    throw new UsageError(`--type "${contentType}" is not a content type (type/subtype, e.g. text/csv)`);
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(path.resolve(ctx.io.cwd, file));
  } catch (err) {
    fileError(err, 'read', file);
  }
  const client = ctx.client();
  const { file: stored, created } = await uploadFile(client, name, bytes, contentType);
  if (stored?.sha256 && stored.sha256.toLowerCase() !== sha256Hex(bytes))
    throw new CliError(
      `PUT /v1/files/${name}: the stored content differs from ${file} (sha256 ${stored.sha256}, sent ${sha256Hex(bytes)}); upload it again`,
      EXIT.incomplete,
    );
  ctx.print(
    `Uploaded ${name}: ${created ? 'created' : 'replaced'} (${formatSize(bytes.length)}, ${stored?.contentType ?? contentType}, sha256 ${sha256Hex(bytes)})`,
  );
  return EXIT.ok;
}

async function runList(ctx: CliContext, flags: { json?: boolean }): Promise<ExitCode> {
  const files = await listFiles(ctx.client());
  if (flags.json) {
    ctx.print(JSON.stringify(files, null, 2));
    return EXIT.ok;
  }
  if (!files.length) ctx.note('No files yet (upload one with: assay files upload PATH).');
  for (const f of files) ctx.print(`${f.name}\t${f.size}\t${f.contentType}\t${f.updatedAt}`);
  return EXIT.ok;
}

async function runDownload(ctx: CliContext, name: string, flags: { out?: string }): Promise<ExitCode> {
  const client = ctx.client();
  if (flags.out === '-') {
    const bytes = await downloadFile(client, name);
    await new Promise<void>((resolve, reject) => {
      const out = ctx.io.stdout as NodeJS.WritableStream;
      out.write(bytes, (err) => (err ? reject(err) : resolve()));
    });
    return EXIT.ok;
  }
  const shown = flags.out ?? path.posix.basename(name);
  let target = path.resolve(ctx.io.cwd, shown);
  const stat = await fs.stat(target).catch(() => undefined);
  if (stat?.isDirectory()) target = path.join(target, path.posix.basename(name));
  const bytes = await downloadFile(client, name);
  // A hidden temporary file, renamed: an interrupted download leaves no partial file at `target`.
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.assay-download`);
  try {
    await fs.writeFile(temp, bytes);
    await fs.rename(temp, target);
  } catch (err) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    fileError(err, 'write', shown);
  }
  ctx.print(`Downloaded ${name} to ${path.relative(ctx.io.cwd, target) || target} (${formatSize(bytes.length)})`);
  return EXIT.ok;
}

async function runDelete(ctx: CliContext, name: string): Promise<ExitCode> {
  await deleteFile(ctx.client(), name);
  ctx.print(`Deleted ${name}.`);
  return EXIT.ok;
}

function sub(parent: Command, name: string): Command {
  return parent.commands.find((c) => c.name() === name)!;
}

export const registerWorkspaceFileCommands: Registrar = (program, ctx, done) => {
  const files = program
    .command('files')
    .description(
      'workspace files that API nodes send (multipart parts, binary bodies): upload, list, download, delete',
    );

  files
    .command('upload')
    .description('store a file in the workspace (PUT /v1/files/{name}); replaces one of the same name')
    .argument('<path>', 'the file to upload')
    .option('--name <name>', "its name in the workspace (default: the path's base name)")
    .option(
      '--type <content-type>',
      'its content type (default: guessed from the extension, else application/octet-stream)',
    )
    .action(
      done(() => {
        const cmd = sub(files, 'upload');
        return runUpload(ctx, cmd.args[0]!, cmd.opts<{ name?: string; type?: string }>());
      }),
    );

  files
    .command('list')
    .description('list the workspace files: name, size in bytes, content type, last update')
    .option('--json', 'print the list as JSON')
    .action(done(() => runList(ctx, sub(files, 'list').opts<{ json?: boolean }>())));

  files
    .command('download')
    .description("write a workspace file's content, byte for byte")
    .argument('<name>', 'the file name in the workspace')
    .option(
      '-o, --out <path>',
      "where to write it (default: the name's base name here; a directory: into it; -: stdout)",
    )
    .action(
      done(() => {
        const cmd = sub(files, 'download');
        return runDownload(ctx, cmd.args[0]!, cmd.opts<{ out?: string }>());
      }),
    );

  files
    .command('delete')
    .description('delete a workspace file')
    .argument('<name>', 'the file name in the workspace')
    .action(done(() => runDelete(ctx, sub(files, 'delete').args[0]!)));
};
