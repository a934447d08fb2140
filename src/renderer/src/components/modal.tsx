import { useEffect, useRef } from 'react';
import type { ReactElement, ReactNode } from 'react';

interface ModalProps {
  title: string;
  testId: string;
  onClose: () => void;
  children: ReactNode;
  /** Buttons at the bottom (a Cancel/Close button is added). */
  actions?: ReactNode;
  closeLabel?: string;
  wide?: boolean;
}

/** A modal dialog (native <dialog>: focus stays inside, Escape closes it). */
export function Modal({
  title,
  testId,
  onClose,
  children,
  actions,
  closeLabel = 'Cancel',
  wide,
}: ModalProps): ReactElement {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const titleId = `${testId}-title`;
  return (
    <dialog
      ref={ref}
      className={wide ? 'modal modal-wide' : 'modal'}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="modal-body">{children}</div>
      <div className="modal-actions">
        <button type="button" className="secondary" onClick={onClose} data-testid={`${testId}-close`}>
          {closeLabel}
        </button>
        {actions}
      </div>
    </dialog>
  );
}

/** Asks before something that cannot be undone. */
export function ConfirmModal({
  title,
  testId,
  children,
  confirmLabel,
  onConfirm,
  onClose,
  danger,
}: {
  title: string;
  testId: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
  danger?: boolean;
}): ReactElement {
  return (
    <Modal
      title={title}
      testId={testId}
      onClose={onClose}
      actions={
        <button
          type="button"
          className={danger ? 'danger' : undefined}
          onClick={onConfirm}
          data-testid={`${testId}-confirm`}
        >
          {confirmLabel}
        </button>
      }
    >
      {children}
    </Modal>
  );
}
