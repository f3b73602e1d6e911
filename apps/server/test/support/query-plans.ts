import { Prisma, type PrismaClient } from '../../src/generated/prisma/client.js';

/** One node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, with the fields the plan tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Plan Rows': number;
  Plans?: PlanNode[];
}

/** A plan node and every node below it. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The plan PostgreSQL chooses for `query` (not run). */
export const explain = async (prisma: PrismaClient, query: Prisma.Sql): Promise<PlanNode> => {
  const [row] = await prisma.$queryRaw<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
    Prisma.sql`EXPLAIN (FORMAT JSON) ${query}`,
  );
  return row!['QUERY PLAN'][0].Plan;
};

/** Sequential scans of the big tables (the master tables are small enough for one to be right). */
export const orderTableSeqScans = (plan: PlanNode): PlanNode[] =>
  nodesOf(plan).filter(
    (node) =>
      node['Node Type'] === 'Seq Scan' && ['sales_orders', 'sales_order_details'].includes(node['Relation Name'] ?? ''),
  );
