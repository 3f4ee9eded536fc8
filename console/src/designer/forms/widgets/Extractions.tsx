/**
 * The extractions table of API nodes: rows of variable name → JSONata expression over the response
 * (`response.body.token`), stored in the node's `extract` (an object: variable name → expression;
 * see plan.ts `KNOWN_EXTRA_FIELDS`). Labels: "Extraction N variable", "Extraction N expression".
 * A row without a name is kept in the table but not stored; an empty table removes `extract`.
 */
import { useId } from 'preact/hooks';
import type { ExtractionsControl } from '../plan';
import { expressionValues, KeyValueTable, useSyncedRows, type Env } from '../controls';
import { getAt, mapToRows, rowsToMap, sameJson } from '../values';

/** The extractions table (see the module's notes). */
export function ExtractionsTable({ c, env }: { c: ExtractionsControl; env: Env }) {
  const uid = useId();
  const value = getAt(env.node, c.path);
  const { rows, setRows } = useSyncedRows(value, mapToRows, (r, v) => sameJson(rowsToMap(r), v));
  const errors = env.errors(c.pointer);
  return (
    <fieldset class={`dzf-fieldset dzf-extractions${errors.length ? ' dzf-invalid' : ''}`}>
      <legend>{c.label}</legend>
      <p class="field-hint dzf-hint">
        Variables set from the response after the request: a name, and a JSONata expression such as response.body.token.
        Later nodes read them as {'{{name}}'} and variables.name.
      </p>
      <KeyValueTable
        noun="Extraction"
        nameLabel="variable"
        valueLabel="expression"
        namePlaceholder="token"
        rows={rows}
        readOnly={env.readOnly}
        errors={errors}
        onRows={(next) => {
          setRows(next);
          env.set(c.path, rowsToMap(next));
        }}
        valueInput={expressionValues(uid, env, 'response.body.token', true)}
      />
    </fieldset>
  );
}
