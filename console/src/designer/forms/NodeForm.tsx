/**
 * The form of one flow node (docs/console.md "The designer").
 * The controls come from the server's own schemas (./plan.ts walks
 * `NODE_FIELDS[type]` and `NODE_COMMON_PROPERTIES` of src/validation/flow-schemas.ts), so a new node
 * type gets a form without a new page; widgets draw the most used fields: the request builder (API,
 * Poll), the assertions table, the extractions table (API `extract`), the Ref test case picker;
 * expression fields are checked with jsonata as they are typed.
 *
 * Every change goes through `onSet(fieldPath, value)`, relative to the node (`undefined` deletes
 * the field); the caller makes it one undoable command. When a field's parent is missing
 * (`script` absent and its code typed), the form sets the nearest missing parent instead, built
 * around the value (`onSet(['script'], {code: 'x'})`), so the caller never has to create parents.
 *
 * `errors` (JSON pointers relative to the node) are shown at the control that owns the pointer
 * (./plan.ts `assignErrors`); those no control owns are listed at the top of the form.
 */
import { useMemo, useRef } from 'preact/hooks';
import type { FlowNode } from '../../../../src/domain/types';
import { ControlView } from './generic';
import { type Env, type FormContext } from './controls';
import { typeLabel } from '../model/summary';
import { PlanError, anchorsOf, assignErrors, planNode, type FieldProblem, type FormPlan, type Path } from './plan';
import { getAt } from './values';
import './forms.css';

export type { FormContext } from './controls';
export type { FieldProblem } from './plan';

/** Properties of {@link NodeForm}. */
export interface NodeFormProps {
  /** The node edited (its `type` chooses the form). */
  node: FlowNode;
  /** Sets the field at `fieldPath` (relative to the node: `['request', 'url']`); `undefined` deletes it. */
  onSet: (fieldPath: (string | number)[], value: unknown) => void;
  /** API field errors for this node: `pointer` relative to the node (`/request/url`), and the message. */
  errors: FieldProblem[];
  /** Shows the values without letting them change (no add/remove buttons). */
  readOnly?: boolean;
  context: FormContext;
}

const plans = new Map<string, FormPlan | PlanError>();

/** The plan of a node type, made once per type (a {@link PlanError} when the schema has something unknown). */
function planFor(type: string): FormPlan | PlanError {
  let p = plans.get(type);
  if (!p) {
    try {
      p = planNode(type as FlowNode['type']);
    } catch (err) {
      p = err instanceof PlanError ? err : new PlanError((err as Error).message, type);
    }
    plans.set(type, p);
  }
  return p;
}

const COMMON_HINTS: Record<string, string> = {
  id: 'Unique in the flow; expressions read nodes.<id>.',
  name: 'Shown in the tree and the results.',
};

/** A value for `rest` (the missing part of a path) holding `value`: `['a', 0]` → `{a: [value]}`. */
function build(rest: Path, value: unknown): unknown {
  if (rest.length === 0) return value;
  const inner = build(rest.slice(1), value);
  return typeof rest[0] === 'number' ? [inner] : { [rest[0]!]: inner };
}

/** The form of `node` (see the module's notes). */
export function NodeForm({ node, onSet, errors, readOnly = false, context }: NodeFormProps) {
  const plan = planFor(node.type);
  const latest = useRef(node);
  latest.current = node;
  const assigned = useMemo(
    () => (plan instanceof PlanError ? undefined : assignErrors(anchorsOf(plan), errors)),
    [plan, errors],
  );

  if (plan instanceof PlanError)
    return (
      <div class="problem" role="alert">
        <strong class="problem-title">No form for this {node.type} node</strong>
        <p class="problem-detail">
          {plan.message}. Edit it in the JSON view; the form needs teaching this schema (designer/forms/plan.ts).
        </p>
      </div>
    );

  const set = (path: Path, value: unknown) => {
    const current = latest.current;
    for (let k = 1; k < path.length; k++) {
      const parent = getAt(current, path.slice(0, k));
      if (parent === null || typeof parent !== 'object') {
        if (value === undefined) return;
        onSet([...path.slice(0, k)], build(path.slice(k), value));
        return;
      }
    }
    onSet([...path], value);
  };
  const env: Env = {
    node,
    set,
    readOnly,
    context,
    errors: (pointer) => assigned?.byAnchor.get(pointer) ?? [],
    errorsUnder: (pointer) =>
      errors.filter((e) => {
        const p = e.pointer.replace(/^#/, '');
        return p === pointer || p.startsWith(`${pointer}/`);
      }),
    render: (c) => <ControlView key={c.pointer} c={c} env={env} />,
  };
  const label = typeLabel(plan.type);
  const unmatched = assigned?.unmatched ?? [];

  return (
    <form
      class="dzf"
      aria-label={`${label} node`}
      noValidate
      onSubmit={(e) => e.preventDefault()}
      data-node-type={plan.type}
    >
      <div class="dzf-head">
        <span class="dzf-type">{label}</span>
        <details class="dzf-about">
          <summary>About this node</summary>
          <p>{plan.description}</p>
        </details>
      </div>
      {unmatched.length > 0 && (
        <div class="problem" role="alert">
          <strong class="problem-title">
            {unmatched.length === 1 ? 'A problem with this node' : `${unmatched.length} problems with this node`}
          </strong>
          <ul class="problem-errors">
            {unmatched.map((e, i) => (
              <li key={i}>
                {e.pointer && e.pointer !== '/' && <code>{e.pointer}</code>} {e.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div class="dzf-common">
        {plan.common.map((c) => (
          <ControlView
            key={c.pointer}
            c={COMMON_HINTS[c.covers[0]!] ? { ...c, hint: COMMON_HINTS[c.covers[0]!] } : c}
            env={env}
          />
        ))}
      </div>
      {plan.controls.map((c) => (
        <ControlView key={c.pointer} c={c} env={env} />
      ))}
      {plan.skipped.length > 0 && (
        <p class="field-hint dzf-hint dzf-skipped">{plan.skipped.map((s) => `${s.field}: ${s.reason}`).join(' · ')}</p>
      )}
    </form>
  );
}
