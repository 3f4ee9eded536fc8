/**
 * The test cases' list page, with its folder tree and tag filter. One test case (and a new one)
 * opens in the designer (console/src/designer: the flow as a tree of nodes with forms, JSON one
 * click away, debug runs in place; docs/console.md "The designer").
 */
import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { dateTime } from '../format';
import { seg, TagChips } from './common';
import { ResourceList } from './list';

/** A test case as `GET /v1/test-cases/{id}` answers it. */
export interface TestCase {
  id: string;
  name: string;
  folder: string;
  description: string;
  tags: string[];
  flow: unknown[];
  dataSets: unknown[];
  /** Hooks around each of its API nodes (docs/flows.md "Hooks at three levels"); absent when none. */
  hooks?: { code: string; libs?: string[] };
  createdAt: string;
  updatedAt: string;
}

/** A node of the folder tree: its full path (`users/admin`), its last segment, children, count. */
export interface FolderNode {
  path: string;
  name: string;
  children: FolderNode[];
  /** Test cases in this folder and its subfolders. */
  count: number;
}

/** The folder tree of `folders` (`''` is the top level; `a/b` makes `a` and `a/b`), sorted by name. */
export function folderTree(folders: string[]): FolderNode {
  const root: FolderNode = { path: '', name: 'All folders', children: [], count: 0 };
  for (const folder of folders) {
    root.count++;
    let node = root;
    for (const part of folder.split('/').filter(Boolean)) {
      const path = node.path ? `${node.path}/${part}` : part;
      let child = node.children.find((c) => c.path === path);
      if (!child) {
        child = { path, name: part, children: [], count: 0 };
        node.children.push(child);
        node.children.sort((a, b) => a.name.localeCompare(b.name));
      }
      child.count++;
      node = child;
    }
  }
  return root;
}

/** True when `folder` is `selected` or below it (the API's `folder=` filter: subfolders included). */
export function inFolder(folder: string, selected: string): boolean {
  return selected === '' || folder === selected || folder.startsWith(`${selected}/`);
}

function FolderTree({
  node,
  selected,
  onSelect,
}: {
  node: FolderNode;
  selected: string;
  onSelect: (path: string) => void;
}) {
  return (
    <li>
      <button
        type="button"
        class={`res-folder${node.path === selected ? ' res-folder-current' : ''}`}
        aria-current={node.path === selected ? 'true' : undefined}
        onClick={() => onSelect(node.path)}
      >
        <span>{node.name}</span> <span class="muted">({node.count})</span>
      </button>
      {node.children.length > 0 && (
        <ul>
          {node.children.map((c) => (
            <FolderTree key={c.path} node={c} selected={selected} onSelect={onSelect} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The folder tree and the tag chips, built from the test cases read (none yet while loading), beside `children` (the list). */
function TestCaseFilters({
  items = [],
  folder,
  chosen,
  go,
  children,
}: {
  items: TestCase[] | undefined;
  folder: string;
  chosen: string[];
  go: (folder: string, tags: string[]) => void;
  children: ComponentChildren;
}) {
  const tree = useMemo(() => folderTree(items.map((t) => t.folder)), [items]);
  const allTags = useMemo(() => [...new Set(items.flatMap((t) => t.tags))].sort(), [items]);
  const toggle = (tag: string) => go(folder, chosen.includes(tag) ? chosen.filter((t) => t !== tag) : [...chosen, tag]);
  return (
    <div class="split">
      <nav aria-label="Folders" class="res-tree card">
        <ul>
          <FolderTree node={tree} selected={folder} onSelect={(p) => go(p, chosen)} />
        </ul>
      </nav>
      <div>
        <fieldset class="res-chips" aria-label="Filter by tags">
          <legend>Tags (test cases carrying all chosen tags)</legend>
          {allTags.length === 0 && <span class="muted">No tags yet.</span>}
          {allTags.map((tag) => (
            <button
              key={tag}
              type="button"
              class={`res-chip${chosen.includes(tag) ? ' res-chip-on' : ''}`}
              aria-pressed={chosen.includes(tag)}
              onClick={() => toggle(tag)}
            >
              {tag}
            </button>
          ))}
          {chosen.length > 0 && (
            <button type="button" class="secondary small" onClick={() => go(folder, [])}>
              Clear tags
            </button>
          )}
        </fieldset>
        {children}
      </div>
    </div>
  );
}

/**
 * `/test-cases`: every test case (all pages of `GET /v1/test-cases`), a folder tree to pick a
 * folder (with its subfolders), tag chips (keeps test cases carrying all chosen tags); the
 * choices live in the address (`?folder=a/b&tags=x,y`) so they can be linked.
 */
export function TestCasesPage() {
  const { query, route, path } = useLocation();
  const folder = query.folder ?? '';
  const chosen = (query.tags ?? '').split(',').filter(Boolean);
  const go = (nextFolder: string, nextTags: string[]) => {
    const q = new URLSearchParams();
    if (nextFolder) q.set('folder', nextFolder);
    if (nextTags.length) q.set('tags', nextTags.join(','));
    const s = q.toString();
    route(s ? `${path}?${s}` : path, true);
  };
  return (
    <ResourceList<TestCase>
      title="Test cases"
      sub="Flows of API calls and assertions, in folders, with tags."
      create={{
        href: `/test-cases/new${folder ? `?folder=${encodeURIComponent(folder)}` : ''}`,
        label: 'New test case',
      }}
      path="/v1/test-cases"
      what="test cases"
      empty={{
        title: 'No test cases yet',
        write: <a href="/test-cases/new">New test case</a>,
        via: 'or import them with the API',
        calls: ['POST /v1/test-cases'],
      }}
      table={{
        label: 'Test cases',
        key: (t) => t.id,
        columns: [
          { head: 'Name', cell: (t) => <a href={`/test-cases/${seg(t.id)}`}>{t.name}</a> },
          { head: 'Folder', cell: (t) => t.folder || <span class="muted">(top level)</span> },
          { head: 'Tags', cell: (t) => <TagChips tags={t.tags} /> },
          { head: 'Updated', cell: (t) => dateTime(t.updatedAt) },
        ],
      }}
      narrow={{
        keep: (t) => inFolder(t.folder, folder) && chosen.every((tag) => t.tags.includes(tag)),
        none: (
          <>
            No test case in {folder ? `folder “${folder}”` : 'any folder'}
            {chosen.length ? ` carries all of the tags ${chosen.join(', ')}` : ''}. Choose another folder or fewer tags.
          </>
        ),
      }}
      around={(list, items) => (
        <TestCaseFilters items={items} folder={folder} chosen={chosen} go={go}>
          {list}
        </TestCaseFilters>
      )}
    />
  );
}
