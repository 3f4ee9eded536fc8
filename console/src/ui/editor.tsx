/**
 * The console's code editor for JSON, scripts and bodies: {@link Editor} renders CodeMirror 6
 * (./code-editor.tsx), which is loaded on first use in its own chunk, so pages without an editor
 * (the runs) never download it. Until it arrives, a box of the editor's size stands in (no layout
 * jump). Also {@link pointerRange}: where a JSON pointer of an API field error lies in a text.
 */
import { useEffect, useState } from 'preact/hooks';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';

export type { EditorLanguage, EditorMark, EditorProps } from './editor-types';
import type { EditorProps } from './editor-types';

type CodeEditorModule = typeof import('./code-editor');
let loaded: CodeEditorModule | undefined;
let loading: Promise<CodeEditorModule> | undefined;

/**
 * The code editor; the value is controlled: a new `value` from outside (a load, a reset) replaces
 * the text, while the editor's own edits coming back as `value` are left alone. Ctrl/Cmd+Enter
 * calls `onSubmit`. `marks` are shown as lint marks (see {@link pointerRange}).
 */
export function Editor(props: EditorProps) {
  const [module, setModule] = useState(loaded);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (module) return;
    let live = true;
    (loading ??= import('./code-editor')).then(
      (m) => {
        loaded = m;
        if (live) setModule(m);
      },
      () => {
        // The chunk could not be fetched (offline, or a new build replaced it): say so; a later
        // editor tries again.
        loading = undefined;
        if (live) setFailed(true);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  if (!module)
    return (
      <div
        class="editor editor-loading"
        aria-busy={!failed}
        style={{ minHeight: `calc(${props.minHeight ?? '8rem'} + 2px)`, padding: '0.5rem' }}
      >
        <span class={failed ? 'field-error' : 'muted'} role={failed ? 'alert' : undefined}>
          {failed ? 'The editor could not be loaded: reload the page.' : 'Loading the editor…'}
        </span>
      </div>
    );
  return <module.CodeEditor {...props} />;
}

/**
 * The text range of the value a JSON pointer (`#/flow/1/request/url`) names in `text` (found with
 * Microsoft's jsonc-parser, which keeps offsets), or of its nearest existing parent; the whole text
 * when the text does not parse. Puts the API's field errors on the right line.
 */
export function pointerRange(text: string, pointer: string): { from: number; to: number } {
  const tree = parseTree(text);
  if (!tree) return { from: 0, to: text.length };
  const path: (string | number)[] = pointer
    .replace(/^#?\/?/, '')
    .split('/')
    .filter((p) => p !== '')
    .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  for (let n = path.length; n >= 0; n--) {
    const node = findNodeAtLocation(tree, path.slice(0, n));
    if (node) return { from: node.offset, to: node.offset + node.length };
  }
  return { from: 0, to: text.length };
}
