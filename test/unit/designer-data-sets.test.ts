/**
 * The pure parts of the designer's data-set editor (console/src/designer/page/data-sets-model.ts,
 * docs/console.md "The designer"): typed cells, which JSON data sets fit a table, the table edits,
 * CSV ⇄ rows on a change of type, new data sets, and which API errors land on which data set and
 * field. What the editor produces is checked with the server's own validation
 * (src/validation/flow.ts `validateDataSets`) and parser (src/validation/data-sets.ts `dataSetRows`).
 */
import { expect } from 'chai';
import type { DataSet } from '../../src/domain/types';
import { fieldError } from '../../src/problems';
import { dataSetRows } from '../../src/validation/data-sets';
import { validateDataSets } from '../../src/validation/flow';
import { MAX_DATA_SETS } from '../../src/validation/flow-schemas';
import {
  addColumn,
  addRow,
  canAddDataSet,
  cellText,
  changeType,
  columnNameProblem,
  csvToRows,
  dataSetErrors,
  dataSetNameProblem,
  listErrors,
  newColumnName,
  newDataSet,
  removeColumn,
  removeRow,
  renameColumn,
  setCell,
  tableOf,
  toCsv,
  typedCell,
  type Row,
} from '../../console/src/designer/page/data-sets-model';

const json = (name: string, data: unknown[]): DataSet => ({ name, type: 'json', data });

describe('designer data sets: typed cells', () => {
  it('types true, false, null and JSON numbers; keeps anything else as text', () => {
    expect(typedCell('true')).to.equal(true);
    expect(typedCell('false')).to.equal(false);
    expect(typedCell('null')).to.equal(null);
    expect(typedCell('42')).to.equal(42);
    expect(typedCell('-1.5')).to.equal(-1.5);
    expect(typedCell('1e3')).to.equal(1000);
    for (const text of ['', 'True', 'NULL', '007', '1.', '.5', '+1', ' 42', '0x10', '1e400', 'Ada', '1,5'])
      expect(typedCell(text), text).to.equal(text);
  });

  it('shows every value so that it reads back the same', () => {
    for (const v of [0, -2.5, 1e21, 1.5e-7, 123456789012345680000, true, false, null, 'Ada', ''])
      expect(typedCell(cellText(v)), String(v)).to.equal(v);
    expect(cellText(undefined)).to.equal('');
    expect(cellText(1e21)).to.equal('1e+21');
  });
});

describe('designer data sets: which JSON data sets are a table', () => {
  it('shows a list of flat objects with the keys as columns, in first-seen order', () => {
    const view = tableOf([{ user: 'ada', expected: 200 }, { expected: 404, user: 'bob', note: null }, {}]);
    expect(view).to.deep.equal({
      ok: true,
      columns: ['user', 'expected', 'note'],
      rows: [{ user: 'ada', expected: 200 }, { expected: 404, user: 'bob', note: null }, {}],
    });
    expect(tableOf([])).to.deep.equal({ ok: true, columns: [], rows: [] });
  });

  it('refuses nested values, rows that are not objects and texts a cell would retype, saying where', () => {
    const why = (data: unknown) => {
      const v = tableOf(data);
      expect(v.ok, JSON.stringify(data)).to.equal(false);
      return v.ok ? '' : v.reason;
    };
    expect(why([{ a: 1 }, { a: { b: 1 } }])).to.equal('row 2 "a" holds an object');
    expect(why([{ tags: ['x'] }])).to.equal('row 1 "tags" holds a list');
    expect(why([1, 2])).to.equal('row 1 is 1, not an object of columns');
    expect(why([{ a: 1 }, ['x']])).to.equal('row 2 is ["x"], not an object of columns');
    expect(why([null])).to.match(/^row 1 is null/);
    expect(why([{ id: '42' }])).to.equal('row 1 "id" is the text "42", which a cell would read as a number');
    expect(why([{ ok: 'true' }])).to.equal('row 1 "ok" is the text "true", which a cell would read as a boolean');
    expect(why([{ v: 'null' }])).to.equal('row 1 "v" is the text "null", which a cell would read as null');
    expect(why({ not: 'a list' })).to.equal('its data is not a list');
  });
});

describe('designer data sets: table edits', () => {
  const rows: Row[] = [
    { user: 'ada', expected: 200 },
    { user: 'bob', expected: 404 },
  ];

  it('sets a cell typed, leaving the other rows as they were (shared)', () => {
    const next = setCell(rows, 1, 'expected', '201');
    expect(next).to.deep.equal([
      { user: 'ada', expected: 200 },
      { user: 'bob', expected: 201 },
    ]);
    expect(next[0]).to.equal(rows[0]);
    expect(rows[1]).to.deep.equal({ user: 'bob', expected: 404 });
    expect(setCell(rows, 0, 'user', 'null')[0]).to.deep.equal({ user: null, expected: 200 });
    // A cell absent from a row gets the key when it is edited.
    expect(setCell([{ a: 1 }, {}], 1, 'a', '')[1]).to.deep.equal({ a: '' });
  });

  it('adds and removes rows', () => {
    expect(addRow(rows, ['user', 'expected'])).to.deep.equal([...rows, { user: '', expected: '' }]);
    expect(removeRow(rows, 0)).to.deep.equal([{ user: 'bob', expected: 404 }]);
    expect(removeRow(rows, 5)).to.deep.equal(rows);
  });

  it('adds, renames (keeping the place) and removes columns', () => {
    const name = newColumnName(['user', 'expected']);
    expect(name).to.equal('column3');
    expect(newColumnName(['column2', 'column3'])).to.equal('column4');
    const added = addColumn(rows, name);
    expect(tableOf(added)).to.deep.include({ columns: ['user', 'expected', 'column3'] });
    // With no rows, a new column comes with one empty row (the columns are the rows' keys).
    expect(addColumn([], 'id')).to.deep.equal([{ id: '' }]);
    const renamed = renameColumn(rows, 'user', 'login');
    expect(renamed).to.deep.equal([
      { login: 'ada', expected: 200 },
      { login: 'bob', expected: 404 },
    ]);
    expect(Object.keys(renamed[0]!)).to.deep.equal(['login', 'expected']);
    expect(removeColumn(rows, 'user')).to.deep.equal([{ expected: 200 }, { expected: 404 }]);
  });

  it('refuses an empty or taken column name', () => {
    expect(columnNameProblem(['user', 'expected'], 0, '')).to.equal('A column needs a name.');
    expect(columnNameProblem(['user', 'expected'], 0, 'expected')).to.equal('Another column is named "expected".');
    expect(columnNameProblem(['user', 'expected'], 0, 'user')).to.equal(undefined);
    expect(columnNameProblem(['user', 'expected'], 0, 'login')).to.equal(undefined);
  });
});

describe('designer data sets: new data sets and names', () => {
  it('adds data<N> as JSON with one column "value" and one empty row, which the API accepts', () => {
    const first = newDataSet([]);
    expect(first).to.deep.equal({ name: 'data1', type: 'json', data: [{ value: '' }] });
    expect(newDataSet([json('data2', []), json('x', [])]).name).to.equal('data3');
    expect(newDataSet([json('data2', [])]).name).to.equal('data3');
    expect(validateDataSets([first, newDataSet([first])])).to.deep.equal([]);
  });

  it('allows at most MAX_DATA_SETS', () => {
    const sets = Array.from({ length: MAX_DATA_SETS }, (_, i) => json(`d${i}`, []));
    expect(canAddDataSet(sets.slice(1))).to.equal(true);
    expect(canAddDataSet(sets)).to.equal(false);
  });

  it('flags a bad or repeated name before the API does, as the API would', () => {
    const sets = [json('users', []), json('users', []), json('has space', []), json('', [])];
    expect(dataSetNameProblem(sets, 0)).to.equal(undefined);
    expect(dataSetNameProblem(sets, 1)).to.equal('"users" is used by another data set.');
    expect(dataSetNameProblem(sets, 2)).to.match(/letters, digits/);
    expect(dataSetNameProblem(sets, 3)).to.match(/letters, digits/);
    const apiSays = (s: DataSet[]) => validateDataSets(s).map((i) => i.path.join('/'));
    expect(apiSays(sets.slice(0, 2))).to.deep.equal(['dataSets/1/name']);
    expect(apiSays(sets.slice(2, 3))).to.deep.equal(['dataSets/0/name']);
    expect(apiSays(sets.slice(3))).to.deep.equal(['dataSets/0/name']);
  });
});

describe('designer data sets: CSV and a change of type', () => {
  it('writes a table as CSV that the API parses back to the same rows (with cast)', () => {
    const rows: Row[] = [
      { user: 'ada, lovelace', expected: 200, ok: true },
      { user: 'say "hi"', expected: 404, ok: false },
      { user: 'line\nbreak', expected: 1.5 },
      { user: '007', expected: -3, ok: true },
    ];
    const csv = toCsv(['user', 'expected', 'ok'], rows);
    expect(csv.split('\n')[0]).to.equal('user,expected,ok');
    const set = changeType(json('t', rows), 'csv');
    expect(set).to.deep.equal({ name: 't', type: 'csv', csv, cast: true });
    expect(dataSetRows(set)).to.deep.equal([
      { user: 'ada, lovelace', expected: 200, ok: true },
      { user: 'say "hi"', expected: 404, ok: false },
      { user: 'line\nbreak', expected: 1.5, ok: '' },
      // A text that `cast` would read as a number is quoted, so it stays text.
      { user: '007', expected: -3, ok: true },
    ]);
    // Only text: no cast.
    expect(changeType(json('t', [{ a: 'x' }]), 'csv')).to.deep.equal({ name: 't', type: 'csv', csv: 'a\nx\n' });
    // A JSON data set that is not a table becomes an empty CSV.
    expect(changeType(json('t', [{ a: { b: 1 } }]), 'csv')).to.deep.equal({ name: 't', type: 'csv', csv: '' });
  });

  it('reads CSV into typed rows on a change to JSON (quoted values stay text)', () => {
    const csv = 'id,name,active\r\n1, Ada ,true\n\n"2","Grace, H.",false\n3\n';
    expect(csvToRows(csv)).to.deep.equal([
      { id: 1, name: 'Ada', active: true },
      { id: '2', name: 'Grace, H.', active: false },
      { id: 3, name: '', active: '' },
    ]);
    expect(changeType({ name: 'u', type: 'csv', csv: 'a\n"x""y"\n' }, 'json')).to.deep.equal(json('u', [{ a: 'x"y' }]));
    expect(csvToRows('')).to.deep.equal([]);
    expect(() => csvToRows('a\n"open')).to.throw(/not closed/);
    // A CSV that does not parse becomes the new data set's one empty row.
    expect(changeType({ name: 'u', type: 'csv', csv: 'a\n"open' }, 'json')).to.deep.equal(json('u', [{ value: '' }]));
  });
});

describe('designer data sets: API errors by data set and field', () => {
  it('puts the API errors under /dataSets/<i> at the data set and the field they name', () => {
    const sets = [json('ok', []), json('ok', []), { name: 'c', type: 'csv', csv: 'a,b\n"1,2\n' } as DataSet];
    const errors = validateDataSets(sets).map((i) => fieldError(i.path, i.message));
    expect(dataSetErrors(errors, 0)).to.deep.equal({ name: [], csv: [], data: [], card: [] });
    expect(dataSetErrors(errors, 1).name).to.deep.equal(['"ok" is used by another data set']);
    expect(dataSetErrors(errors, 2).csv).to.have.length(1);
    expect(dataSetErrors(errors, 2).csv[0]).to.match(/^does not parse/);
  });

  it('sorts other pointers: data rows, the set itself, the list, and ignores others', () => {
    const errors = [
      { pointer: '#/dataSets/0/data/2', detail: 'must be object' },
      { pointer: '/dataSets/0/data', detail: 'must be array' },
      { pointer: '#/dataSets/0', detail: 'must have required property csv' },
      { pointer: '#/dataSets/0/cast', detail: 'must be boolean' },
      { pointer: '#/dataSets', detail: 'must NOT have more than 20 items' },
      { pointer: '#/dataSets/10/name', detail: 'elsewhere' },
      { pointer: '#/flow/0', detail: 'not a data set' },
      { detail: 'no pointer' },
    ];
    expect(dataSetErrors(errors, 0)).to.deep.equal({
      name: [],
      csv: [],
      data: ['row 3: must be object', 'must be array'],
      card: ['must have required property csv', 'cast: must be boolean'],
    });
    expect(dataSetErrors(errors, 1)).to.deep.equal({ name: [], csv: [], data: [], card: [] });
    expect(dataSetErrors(errors, 10).name).to.deep.equal(['elsewhere']);
    expect(listErrors(errors)).to.deep.equal(['must NOT have more than 20 items']);
  });
});
