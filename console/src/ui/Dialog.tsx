/**
 * A modal dialog (native `<dialog>`, opened with `showModal()` when mounted): named `title` (its
 * `aria-label`, so tests and assistive technology find it by role `dialog` and that name), a header
 * with the title as an `<h2>` and a "Close" button; Escape (the dialog's `cancel` event, its default
 * prevented) and Close both call `onClose`, and the caller unmounts it. Used by the local requests
 * page (console/src/local/dialogs.tsx) and the designer's ways in (console/src/designer/ways-in/WaysIn.tsx).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** Properties of {@link Dialog}. */
export interface DialogProps {
  /** The dialog's accessible name and heading. */
  title: string;
  /** Runs on Escape and on the Close button (the one given when the dialog opened). */
  onClose: () => void;
  /** The dialog's class, styled by the caller's stylesheet; its header gets `<class>-head` (`lr-dialog`, `lr-dialog-head`). */
  class: string;
  children: ComponentChildren;
}

/** The modal dialog of {@link DialogProps}. */
export function Dialog({ title, onClose, class: className, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) d.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      onClose();
    };
    d.addEventListener('cancel', onCancel);
    return () => d.removeEventListener('cancel', onCancel);
  }, []);
  return (
    <dialog ref={ref} class={className} aria-label={title}>
      <header class={`${className}-head`}>
        <h2>{title}</h2>
        <button type="button" class="secondary small" onClick={onClose}>
          Close
        </button>
      </header>
      {children}
    </dialog>
  );
}
