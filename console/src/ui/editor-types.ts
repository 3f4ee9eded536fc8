/**
 * The shapes of the console's code editor (editor.tsx), in a module of their own so that the
 * CodeMirror chunk (code-editor.tsx) and its loader share them without importing each other.
 */

/** Languages the editor highlights. */
export type EditorLanguage = 'json' | 'javascript' | 'text';

/** A mark the editor shows: a character range and a message. */
export interface EditorMark {
  from: number;
  to: number;
  message: string;
}

/** Properties of {@link Editor}. */
export interface EditorProps {
  value: string;
  onChange?: (value: string) => void;
  language?: EditorLanguage;
  /** Accessible name of the editor (it has no visible <label>). */
  label: string;
  readOnly?: boolean;
  marks?: EditorMark[];
  /** Called on Ctrl/Cmd+Enter. */
  onSubmit?: () => void;
  minHeight?: string;
}
