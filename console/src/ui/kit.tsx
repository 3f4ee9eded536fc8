/**
 * Small building blocks shared by every page: problem boxes, empty states, status badges,
 * progress bars, copy buttons, labelled fields, confirmation buttons.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Problem } from '../api';

/** An API problem shown as its `title`, `detail` and field errors (docs/api.md "Errors"). */
export function ProblemBox({ problem, onRetry }: { problem: Problem | undefined; onRetry?: () => void }) {
  if (!problem) return null;
  return (
    <div class="problem" role="alert">
      <strong class="problem-title">{problem.title}</strong>
      {problem.detail && <p class="problem-detail">{problem.detail}</p>}
      {problem.errors && problem.errors.length > 0 && (
        <ul class="problem-errors">
          {problem.errors.map((e, i) => (
            <li key={i}>
              {e.field && <code>{e.field}</code>} {e.detail}
            </li>
          ))}
        </ul>
      )}
      {onRetry && (
        <button type="button" class="secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** What a page shows when it has nothing yet: what it is for and what to do. */
export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}

/** A status or result as a coloured badge: passed/completed green, failed red, running blue. */
export function Badge({ value }: { value: string | undefined }) {
  if (!value) return <span class="badge">—</span>;
  return <span class={`badge badge-${value}`}>{value}</span>;
}

/** A progress bar with its percentage; fixed height so live updates never move the layout. */
export function ProgressBar({ percentage, label }: { percentage: number; label: string }) {
  const p = Math.max(0, Math.min(100, percentage));
  return (
    <div class="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={p}>
      <div class="progress-fill" style={{ width: `${p}%` }} />
      <span class="progress-text">{p.toFixed(0)}%</span>
    </div>
  );
}

/** A button that copies `text` to the clipboard and says so for two seconds. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard refused (no permission, insecure origin): select-and-copy fallback.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 2000);
  };
  return (
    <button type="button" class="secondary small" onClick={copy} aria-label={label}>
      {done ? 'Copied' : label}
    </button>
  );
}

/** A labelled form control: `label` above, `error` (from a problem's field errors) below. */
export function Field({
  label,
  error,
  children,
  hint,
}: {
  label: string;
  error?: string;
  hint?: string;
  children: ComponentChildren;
}) {
  return (
    <label class={`field${error ? ' field-invalid' : ''}`}>
      <span class="field-label">{label}</span>
      {children}
      {hint && !error && <span class="field-hint">{hint}</span>}
      {error && (
        <span class="field-error" role="alert">
          {error}
        </span>
      )}
    </label>
  );
}

/** A button that asks "Are you sure?" (a native confirm) before it acts. */
export function ConfirmButton({
  question,
  onConfirm,
  children,
  ...rest
}: { question: string; onConfirm: () => void } & JSX.ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button
      type="button"
      {...rest}
      onClick={() => {
        if (window.confirm(question)) onConfirm();
      }}
    >
      {children}
    </button>
  );
}

/** A page heading with actions on the right. */
export function PageHeader({
  title,
  children,
  sub,
}: {
  title: string;
  sub?: ComponentChildren;
  children?: ComponentChildren;
}) {
  return (
    <header class="page-header">
      <div>
        <h1>{title}</h1>
        {sub && <div class="page-sub">{sub}</div>}
      </div>
      <div class="page-actions">{children}</div>
    </header>
  );
}

/** The first field error of `problem` whose field is `field` or starts with `field.`/`field[`. */
export function fieldError(problem: Problem | undefined, field: string): string | undefined {
  const e = problem?.errors?.find(
    (x) => x.field === field || x.field?.startsWith(`${field}.`) || x.field?.startsWith(`${field}[`),
  );
  return e ? e.detail : undefined;
}
