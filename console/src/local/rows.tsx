/**
 * Editable name/value rows (headers, form fields, variables) and multipart parts. Every input has
 * an accessible name that says which row it belongs to ("Header 2 value").
 */
import { MAX_FILE_BYTES, type PartRow, type Row } from './store';
import { bytes } from '../format';

/** Rows of `noun`s (e.g. "Header"): enable toggle, name, value, remove; "Add <noun>" appends one. */
export function RowsEditor({
  noun,
  rows,
  onChange,
  toggle = true,
  valuePlaceholder,
}: {
  noun: string;
  rows: Row[];
  onChange: (rows: Row[]) => void;
  toggle?: boolean;
  valuePlaceholder?: string;
}) {
  const set = (i: number, patch: Partial<Row>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div class="lr-rows">
      {rows.map((r, i) => (
        <div class="lr-row" key={i}>
          {toggle && (
            <input
              type="checkbox"
              checked={r.enabled}
              aria-label={`Send ${noun.toLowerCase()} ${i + 1}`}
              onChange={(e) => set(i, { enabled: e.currentTarget.checked })}
            />
          )}
          <input
            class="lr-name"
            value={r.name}
            aria-label={`${noun} ${i + 1} name`}
            placeholder="Name"
            onInput={(e) => set(i, { name: e.currentTarget.value })}
          />
          <input
            class="lr-value"
            value={r.value}
            aria-label={`${noun} ${i + 1} value`}
            placeholder={valuePlaceholder ?? 'Value'}
            onInput={(e) => set(i, { value: e.currentTarget.value })}
          />
          <button
            type="button"
            class="secondary small"
            aria-label={`Remove ${noun.toLowerCase()} ${i + 1}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
          >
            ✕
          </button>
        </div>
      ))}
      <button
        type="button"
        class="secondary small"
        onClick={() => onChange([...rows, { name: '', value: '', enabled: true }])}
      >
        Add {noun.toLowerCase()}
      </button>
    </div>
  );
}

/**
 * Parts of a multipart body: text or file. Choosing a file hands it to `onFile`, which keeps it
 * (IndexedDB) and answers the part's new fields.
 */
export function PartsEditor({
  parts,
  onChange,
  onFile,
  onRemoveFile,
}: {
  parts: PartRow[];
  onChange: (parts: PartRow[]) => void;
  onFile: (i: number, file: File) => void;
  onRemoveFile: (fileId: string) => void;
}) {
  const set = (i: number, patch: Partial<PartRow>) => onChange(parts.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div class="lr-rows">
      {parts.map((p, i) => (
        <div class="lr-row" key={i}>
          <input
            type="checkbox"
            checked={p.enabled}
            aria-label={`Send part ${i + 1}`}
            onChange={(e) => set(i, { enabled: e.currentTarget.checked })}
          />
          <select
            aria-label={`Part ${i + 1} kind`}
            value={p.kind}
            onChange={(e) => set(i, { kind: e.currentTarget.value as PartRow['kind'] })}
          >
            <option value="text">Text</option>
            <option value="file">File</option>
          </select>
          <input
            class="lr-name"
            value={p.name}
            aria-label={`Part ${i + 1} name`}
            placeholder="Name"
            onInput={(e) => set(i, { name: e.currentTarget.value })}
          />
          {p.kind === 'text' ? (
            <input
              class="lr-value"
              value={p.value}
              aria-label={`Part ${i + 1} value`}
              placeholder="Value"
              onInput={(e) => set(i, { value: e.currentTarget.value })}
            />
          ) : (
            <span class="lr-value lr-file">
              <input
                type="file"
                aria-label={`Part ${i + 1} file`}
                onChange={(e) => {
                  const f = e.currentTarget.files?.[0];
                  if (f) onFile(i, f);
                  e.currentTarget.value = '';
                }}
              />
              <span class="muted" data-testid={`part-${i + 1}-file`}>
                {p.fileId
                  ? `${p.fileName} (${bytes(p.fileSize)})`
                  : p.fileName
                    ? `Choose "${p.fileName}" again`
                    : `No file chosen (up to ${bytes(MAX_FILE_BYTES)})`}
              </span>
            </span>
          )}
          <button
            type="button"
            class="secondary small"
            aria-label={`Remove part ${i + 1}`}
            onClick={() => {
              if (p.fileId) onRemoveFile(p.fileId);
              onChange(parts.filter((_, j) => j !== i));
            }}
          >
            ✕
          </button>
        </div>
      ))}
      <button
        type="button"
        class="secondary small"
        onClick={() => onChange([...parts, { name: '', value: '', enabled: true, kind: 'text' }])}
      >
        Add part
      </button>
    </div>
  );
}
