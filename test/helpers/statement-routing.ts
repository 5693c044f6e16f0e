import { fingerprintSync, loadModule, parseSync } from 'libpg-query';

/**
 * Whether a statement could be routed to one shard of a PostgreSQL distributed by workspace_id (Citus), read from
 * PostgreSQL's own parse tree (libpg-query): every tenant table the statement reads or writes must be pinned by an
 * equality on its workspace_id to one value (a parameter or constant), directly or through equalities with other
 * tables' workspace_id; tables joined on the same workspace share that value. Issue 25, docs/scaling.md.
 */

type Node = Record<string, unknown>;

interface TableRef {
  key: string;
  relname: string;
}

interface Level {
  refs: Map<string, TableRef>; // alias (or table name) -> ref
  outer?: Level;
}

/** Union-find over workspace_id expressions: table refs' columns and the values they are compared with. */
class Groups {
  private parent = new Map<string, string>();
  find(x: string): string {
    let p = this.parent.get(x) ?? x;
    if (p !== x) {
      p = this.find(p);
      this.parent.set(x, p);
    }
    return p;
  }
  union(a: string, b: string): void {
    this.parent.set(this.find(a), this.find(b));
  }
}

const isObj = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (n: unknown): string | undefined => (isObj(n) && isObj(n.String) ? (n.String.sval as string) : undefined);

export interface RoutingProblem {
  statement: string;
  problem: string;
}

export class RoutingChecker {
  private constructor(private readonly tenantTables: Set<string>) {}

  static async create(tenantTables: Iterable<string>): Promise<RoutingChecker> {
    await loadModule();
    return new RoutingChecker(new Set(tenantTables));
  }

  /** The statement's identity across constants and formatting (PostgreSQL's query fingerprint). */
  fingerprint(sql: string): string {
    return fingerprintSync(sql);
  }

  /** The problems of one statement: tenant tables not pinned to one workspace, or pinned to several. */
  check(sql: string): string[] {
    let tree: { stmts?: Array<{ stmt: Node }> };
    try {
      tree = parseSync(sql) as never;
    } catch {
      return []; // not SQL this checker can read (e.g. a multi-statement script): nothing to route
    }
    const problems: string[] = [];
    for (const { stmt } of tree.stmts ?? []) {
      const run = new StatementRun(this.tenantTables);
      run.statement(stmt);
      problems.push(...run.problems());
    }
    return problems;
  }
}

/** One statement's walk: its query levels, table refs and workspace_id equalities. */
class StatementRun {
  private readonly groups = new Groups();
  private readonly refs: TableRef[] = [];
  private readonly ctes = new Set<string>();
  /** The single values workspace_ids are compared with (parameters, constants, an INSERT's own rows). */
  private readonly values = new Set<string>();
  private seq = 0;

  constructor(private readonly tenantTables: Set<string>) {}

  statement(stmt: Node, outer?: Level): void {
    const [kind, body] = Object.entries(stmt)[0] as [string, Node];
    if (!isObj(body)) return;
    if (isObj(body.withClause)) this.withClause(body.withClause, outer);
    if (kind === 'SelectStmt') return this.select(body, outer);
    if (kind === 'UpdateStmt' || kind === 'DeleteStmt') return this.modify(body, outer);
    if (kind === 'InsertStmt') return this.insert(body, outer);
    this.nested(body, outer);
  }

  private withClause(w: Node, outer?: Level): void {
    for (const cte of (w.ctes as Node[]) ?? []) {
      const c = cte.CommonTableExpr as Node;
      this.ctes.add(c.ctename as string);
      this.statement(c.ctequery as Node, outer);
    }
  }

  private select(s: Node, outer?: Level): void {
    if (s.op && s.op !== 'SETOP_NONE') {
      this.statement({ SelectStmt: s.larg }, outer);
      this.statement({ SelectStmt: s.rarg }, outer);
      return;
    }
    const level: Level = { refs: new Map(), outer };
    const quals: unknown[] = [s.whereClause, s.havingClause];
    for (const f of (s.fromClause as Node[]) ?? []) this.fromItem(f, level, quals);
    this.finish(level, quals, [s.targetList, s.valuesLists, s.groupClause, s.sortClause]);
  }

  private modify(m: Node, outer?: Level): void {
    const level: Level = { refs: new Map(), outer };
    const quals: unknown[] = [m.whereClause];
    this.fromItem({ RangeVar: m.relation }, level, quals);
    for (const f of ((m.fromClause ?? m.usingClause) as Node[]) ?? []) this.fromItem(f, level, quals);
    this.finish(level, quals, [m.targetList, m.returningList]);
  }

  private insert(i: Node, outer?: Level): void {
    const level: Level = { refs: new Map(), outer };
    const ref = this.addRef(i.relation as Node, level);
    const cols = ((i.cols as Node[]) ?? []).map((c) => (c.ResTarget as Node).name);
    // The inserted rows carry their workspace_id (the values or the SELECT supply it): Citus routes each row.
    if (ref && cols.includes('workspace_id')) {
      this.values.add('value:insert');
      this.groups.union(ref.key, 'value:insert');
    }
    if (isObj(i.selectStmt)) this.statement(i.selectStmt, outer);
    this.nested(i.onConflictClause, level);
    this.nested(i.returningList, level);
  }

  private fromItem(f: Node, level: Level, quals: unknown[]): void {
    if (isObj(f.RangeVar)) this.addRef(f.RangeVar, level);
    else if (isObj(f.JoinExpr)) {
      this.fromItem(f.JoinExpr.larg as Node, level, quals);
      this.fromItem(f.JoinExpr.rarg as Node, level, quals);
      quals.push(f.JoinExpr.quals);
    } else if (isObj(f.RangeSubselect)) this.statement(f.RangeSubselect.subquery as Node, level);
    else this.nested(f, level);
  }

  private addRef(rv: Node, level: Level): TableRef | undefined {
    const relname = rv.relname as string;
    const alias = isObj(rv.alias) ? (rv.alias.aliasname as string) : relname;
    if (this.ctes.has(relname) && !rv.schemaname) return undefined;
    const ref = { key: `t${this.seq++}:${alias}`, relname };
    level.refs.set(alias, ref);
    if (this.tenantTables.has(relname)) this.refs.push(ref);
    return ref;
  }

  /** The level's conjuncts pin workspace_ids; everything else (targets, sub-selects) is walked for nested levels. */
  private finish(level: Level, quals: unknown[], rest: unknown[]): void {
    for (const q of quals) for (const c of conjuncts(q)) this.equality(c, level);
    for (const q of quals) this.nested(q, level);
    for (const r of rest) this.nested(r, level);
  }

  private equality(c: Node, level: Level): void {
    const e = c.A_Expr as Node | undefined;
    if (!e || e.kind !== 'AEXPR_OP' || str((e.name as unknown[])[0]) !== '=') return;
    const a = this.operand(e.lexpr as Node, level);
    const b = this.operand(e.rexpr as Node, level);
    if (a && b && (a.startsWith('t') || b.startsWith('t'))) this.groups.union(a, b);
  }

  /** A workspace_id column (its table ref's key) or a single value; undefined for anything else. */
  private operand(n: Node, level: Level): string | undefined {
    if (isObj(n.TypeCast)) return this.operand(n.TypeCast.arg as Node, level);
    if (isObj(n.ParamRef)) return this.value(`value:$${n.ParamRef.number as number}`);
    if (isObj(n.A_Const)) return this.value(`value:${JSON.stringify({ ...n.A_Const, location: 0 })}`);
    if (!isObj(n.ColumnRef)) return undefined;
    const fields = (n.ColumnRef.fields as unknown[]).map(str);
    if (fields[fields.length - 1] !== 'workspace_id') return undefined;
    return fields.length === 1 ? this.onlyRef(level)?.key : this.resolve(fields[fields.length - 2]!, level)?.key;
  }

  private value(v: string): string {
    this.values.add(v);
    return v;
  }

  private resolve(alias: string, level?: Level): TableRef | undefined {
    for (let l = level; l; l = l.outer) if (l.refs.has(alias)) return l.refs.get(alias);
    return undefined;
  }

  private onlyRef(level: Level): TableRef | undefined {
    return level.refs.size === 1 ? [...level.refs.values()][0] : undefined;
  }

  /** Walks any node for nested statements (sub-selects in expressions, CTEs), each a level of its own. */
  private nested(n: unknown, level?: Level): void {
    if (Array.isArray(n)) return n.forEach((x) => this.nested(x, level));
    if (!isObj(n)) return;
    if (isObj(n.SubLink)) return this.statement({ SelectStmt: (n.SubLink.subselect as Node).SelectStmt }, level);
    for (const k of ['SelectStmt', 'UpdateStmt', 'DeleteStmt', 'InsertStmt'])
      if (isObj(n[k])) return this.statement({ [k]: n[k] }, level);
    for (const v of Object.values(n)) this.nested(v, level);
  }

  problems(): string[] {
    const out: string[] = [];
    const pinnedTo = new Map<string, Set<string>>(); // group -> values
    for (const v of this.values) {
      const g = this.groups.find(v);
      pinnedTo.set(g, (pinnedTo.get(g) ?? new Set()).add(v));
    }
    const used = new Set<string>();
    for (const r of this.refs) {
      const values = pinnedTo.get(this.groups.find(r.key));
      if (!values) out.push(`${r.relname} (${r.key.split(':')[1]}) has no workspace_id equality`);
      else if (values.size > 1) out.push(`${r.relname} is pinned to several workspaces: ${[...values].join(', ')}`);
      else used.add([...values][0]);
    }
    const distinct = [...used].filter((v) => v !== 'value:insert');
    if (distinct.length > 1) out.push(`tenant tables of different workspaces in one statement: ${distinct.join(', ')}`);
    return out;
  }
}

/** The top-level AND terms of a condition (an OR or NOT pins nothing). */
function conjuncts(q: unknown): Node[] {
  if (!isObj(q)) return [];
  const b = q.BoolExpr as Node | undefined;
  if (b && b.boolop === 'AND_EXPR') return (b.args as Node[]).flatMap(conjuncts);
  return [q];
}

/** A statement known to offend (the ratchet's baseline file, test/e2e/statement-routing.baseline.json). */
export interface Offender {
  fingerprint: string;
  problems: string[];
  sql: string;
}

/**
 * The ratchet: offenders seen now that the baseline does not list (new code that does not route: a failure), and
 * listed ones no longer seen (fixed, or no longer sent: take them out, so the list only shrinks).
 */
export function ratchet(seen: Offender[], listed: Offender[]): { unlisted: Offender[]; stale: Offender[] } {
  const listedPrints = new Set(listed.map((o) => o.fingerprint));
  const seenPrints = new Set(seen.map((o) => o.fingerprint));
  return {
    unlisted: seen.filter((o) => !listedPrints.has(o.fingerprint)),
    stale: listed.filter((o) => !seenPrints.has(o.fingerprint)),
  };
}
