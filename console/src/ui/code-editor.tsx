/**
 * The code editor itself (CodeMirror 6) for JSON, scripts and bodies, loaded on demand by
 * {@link ../editor.tsx}'s `Editor` so that pages without an editor do not download CodeMirror. Follows the system theme (one-dark
 * when the system is dark). `diagnostics` are shown as lint marks (JSON pointers resolved by the
 * caller to text ranges; see {@link pointerRange}).
 */
import { useEffect, useRef } from 'preact/hooks';
import { EditorView, basicSetup } from 'codemirror';
import { EditorState, Compartment, type Extension } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { json } from '@codemirror/lang-json';
import { javascript } from '@codemirror/lang-javascript';
import { linter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { oneDark } from '@codemirror/theme-one-dark';
import type { CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import type { EditorCompletion, EditorLanguage, EditorProps } from './editor-types';

function languageOf(lang: EditorLanguage): Extension {
  return lang === 'json' ? json() : lang === 'javascript' ? javascript() : [];
}

/** A completion source offering `list()`'s names that start with the word before the cursor. */
function completeFrom(list: () => readonly EditorCompletion[] | undefined) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const names = list();
    if (!names?.length) return null;
    const word = ctx.matchBefore(/[$\w][$\w.]*/);
    if (!word && !ctx.explicit) return null;
    const typed = word?.text ?? '';
    const options = names
      .filter((c) => c.label.startsWith(typed) && c.label !== typed)
      .map((c) => ({ label: c.label, detail: c.detail, type: 'variable' }));
    return options.length ? { from: word?.from ?? ctx.pos, options, validFor: /^[$\w.]*$/ } : null;
  };
}

const dark = () => window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;

/**
 * The CodeMirror editor; the value is controlled: a new `value` from outside (a load, a reset)
 * replaces the text, while the editor's own edits coming back as `value` are left alone.
 */
export function CodeEditor({
  value,
  onChange,
  language = 'text',
  label,
  readOnly = false,
  marks,
  onSubmit,
  minHeight = '8rem',
  completions,
}: EditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const onSubmitRef = useRef(onSubmit);
  onSubmitRef.current = onSubmit;
  const completionsRef = useRef(completions);
  completionsRef.current = completions;
  const source = useRef(completeFrom(() => completionsRef.current));
  const lang = useRef(new Compartment());
  /**
   * Texts this editor reported through `onChange` since the last outside change. A `value` among
   * them is our own edit coming back, possibly from a render one keystroke behind: writing it into
   * the editor would undo the newer keystrokes and start an endless back-and-forth with the parent.
   */
  const emitted = useRef<string[]>([]);
  /** True while an outside `value` is being written in (not reported back through `onChange`). */
  const applying = useRef(false);
  const theme = useRef(new Compartment());

  useEffect(() => {
    const state = EditorState.create({
      doc: value,
      extensions: [
        keymap.of([{ key: 'Mod-Enter', run: () => (onSubmitRef.current ? (onSubmitRef.current(), true) : false) }]),
        basicSetup,
        lang.current.of(languageOf(language)),
        theme.current.of(dark() ? oneDark : []),
        linter(null),
        // One source for the editor's life (CodeMirror keeps a source's results by its identity).
        EditorState.languageData.of(() => [{ autocomplete: source.current }]),
        EditorView.lineWrapping,
        EditorState.readOnly.of(readOnly),
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.theme({ '&': { minHeight }, '.cm-scroller': { minHeight } }),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged || applying.current) return;
          const text = u.state.doc.toString();
          emitted.current.push(text);
          if (emitted.current.length > 50) emitted.current.shift();
          onChangeRef.current?.(text);
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current! });
    const media = window.matchMedia?.('(prefers-color-scheme: dark)');
    const onTheme = () => view.current?.dispatch({ effects: theme.current.reconfigure(dark() ? oneDark : []) });
    media?.addEventListener('change', onTheme);
    return () => {
      media?.removeEventListener('change', onTheme);
      view.current?.destroy();
      view.current = null;
    };
    // The editor is created once; value, language and marks are pushed by the effects below.
  }, []);

  useEffect(() => {
    const v = view.current;
    if (!v || emitted.current.includes(value) || v.state.doc.toString() === value) return;
    emitted.current = [];
    applying.current = true;
    try {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
    } finally {
      applying.current = false;
    }
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: lang.current.reconfigure(languageOf(language)) });
  }, [language]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const len = v.state.doc.length;
    const diagnostics: Diagnostic[] = (marks ?? []).map((m) => ({
      from: Math.min(m.from, len),
      to: Math.min(Math.max(m.to, m.from), len),
      severity: 'error',
      message: m.message,
    }));
    v.dispatch(setDiagnostics(v.state, diagnostics));
  }, [marks]);

  return <div class="editor" ref={host} />;
}
