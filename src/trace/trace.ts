/**
 * One delegation as a tree, built from what is on disk: each child with its agent, model, status and times, its
 * turns and tool calls in order (from its session file), the decisions taken about it (from its record), and its
 * own nested children under the `subagent` call that started them. The slowest and the most expensive step of
 * the whole tree are marked. Pure: the reader (trace-store.ts) hands in the records and the parsed sessions.
 */
import type { TaskRecord } from "../records/record.ts";
import { messageBlock } from "../records/record.ts";
import type { RunStatus } from "../run/event-reducer.ts";
import { budgetAwareStatus, budgetSummary } from "../budget/limits.ts";
import { verifyNoteText } from "../run/verify.ts";
import { deliverableNoteText } from "../run/deliverable.ts";
import { worktreeSummary } from "../worktree/finish-decision.ts";
import { emptyUsage, oneLine, type UsageTotals } from "../shared/text.ts";
import type { ToolStep, TraceStep } from "./session-steps.ts";

type TraceKind = "task" | "batch" | "chain";

/** What is known of a task that has no record yet (it still runs): from this pi's registry, or nothing. */
export interface LiveTaskFacts {
  agent: string;
  task: string;
  startedAt: number;
  model?: string;
}

/** One task as the reader found it: its record (finished) or what is known while it runs, and its steps. */
export interface TaskFacts {
  taskId: string;
  record?: TaskRecord;
  live?: LiveTaskFacts;
  /** The task whose child it is (its record's `parentSessionId`, a task id for a nested child). */
  parentTaskId?: string;
  steps: TraceStep[];
  /** When the task was made (its id's time): the start of one that has neither a record nor a live run. */
  createdAt?: number;
}

export interface TraceInput {
  /** The id asked for: a task's, or a batch's or chain's. */
  id: string;
  kind: TraceKind;
  /** The top-level tasks, in order: the task itself, or the workflow's parts. */
  rootIds: string[];
  /** Every task found, the roots and their nested children. */
  tasks: TaskFacts[];
  /** A chain's steps that never ran, by agent. */
  notRun?: string[];
}

export interface TraceNode {
  taskId: string;
  agent: string;
  task: string;
  /** `running` while a live process runs it; `unrecorded`: neither a record nor a live run (its pi died first). */
  status: RunStatus | "running" | "unrecorded";
  model?: string;
  start: number;
  /** Absent while it runs. */
  end?: number;
  usage: UsageTotals;
  /** 1 for a child of the main agent. */
  depth: number;
  /** What was decided about it: tools cut, sandbox, budget, stops, checks, questions, messages, worktree. */
  decisions: string[];
  steps: TraceStep[];
  /** Nested children started by its `subagent` calls (each under its call in the text), oldest first. */
  children: TraceNode[];
}

/** A step of the tree by its task and place. */
export interface StepRef {
  taskId: string;
  index: number;
}

export interface Trace {
  id: string;
  kind: TraceKind;
  roots: TraceNode[];
  start: number;
  /** Absent while any task runs. */
  end?: number;
  usage: UsageTotals;
  taskCount: number;
  notRun: string[];
  slowest?: StepRef;
  costliest?: StepRef;
}

/** The decisions a record holds, one line each, in the order they were taken. */
export function decisionsOf(record: TaskRecord): string[] {
  const lines: string[] = [];
  const origin = record.origin;
  if (origin?.context === "fork") lines.push(`context: forked (${origin.forkedMessages ?? 0} messages)`);
  if (origin?.toolsNotGranted) lines.push(origin.toolsNotGranted);
  if (origin?.tools) lines.push(`tools: ${origin.tools.join(", ")}`);
  if (origin?.sandbox) lines.push(`sandbox: ${origin.sandbox}`);
  const budget = budgetSummary(record);
  if (budget) lines.push(`budget: ${budget}`);
  if (record.status === "stopped") lines.push(budgetAwareStatus(record));
  if (record.status === "cancelled")
    lines.push(`cancelled by ${record.cancelledBy ?? "user"}${record.cancelReason ? ` (${record.cancelReason})` : ""}`);
  if (record.status === "failed" || record.status === "timed out")
    lines.push(`${record.status}${record.errorMessage ? `: ${oneLine(record.errorMessage, 200)}` : ""}`);
  if (record.verify) lines.push(`verify: ${verifyNoteText(record.verify)}`);
  if (record.deliverable) lines.push(`deliverable check: ${deliverableNoteText(record.deliverable) ?? "ok"}`);
  for (const question of record.unansweredQuestions ?? []) lines.push(`question: ${question}`);
  for (const line of messageBlock(record.messages).slice(1)) lines.push(`message ${line.slice(2)}`);
  if (record.usageNote) lines.push(`usage: ${record.usageNote}`);
  if (record.worktree) lines.push(`worktree: ${worktreeSummary(record.worktree)}`);
  return lines;
}

function usageOfSteps(steps: readonly TraceStep[]): UsageTotals {
  const usage = emptyUsage();
  for (const step of steps) {
    if (step.kind !== "turn") continue;
    usage.turns += 1;
    usage.input += step.input;
    usage.output += step.output;
    usage.cacheRead += step.cacheRead;
    usage.cacheWrite += step.cacheWrite;
    usage.cost += step.cost;
  }
  return usage;
}

function nodeOf(facts: TaskFacts, depth: number, children: TraceNode[]): TraceNode {
  const { record, live } = facts;
  const firstStep = facts.steps[0];
  const stepStart = firstStep ? (firstStep.kind === "prompt" ? firstStep.at : firstStep.start) : undefined;
  if (record) {
    return {
      taskId: facts.taskId,
      agent: record.agent,
      task: record.task,
      status: record.status,
      model: record.model,
      start: record.startedAt ?? record.dispatchedAt,
      end: record.finishedAt,
      usage: record.usage,
      depth,
      decisions: decisionsOf(record),
      steps: facts.steps,
      children,
    };
  }
  const start = live?.startedAt ?? stepStart ?? facts.createdAt ?? 0;
  // Neither recorded nor running: it ended where its session ends (pi was killed before it wrote the record).
  const lastStep = facts.steps.at(-1);
  const lastTime = lastStep ? (lastStep.kind === "prompt" ? lastStep.at : (lastStep.end ?? lastStep.start)) : start;
  return {
    taskId: facts.taskId,
    agent: live?.agent ?? "subagent",
    task: live?.task ?? "",
    status: live ? "running" : "unrecorded",
    model: live?.model,
    start,
    ...(live ? {} : { end: Math.max(start, lastTime) }),
    usage: usageOfSteps(facts.steps),
    depth,
    decisions: [],
    steps: facts.steps,
    children,
  };
}

function addUsage(total: UsageTotals, usage: UsageTotals): void {
  total.turns += usage.turns;
  total.input += usage.input;
  total.output += usage.output;
  total.cacheRead += usage.cacheRead;
  total.cacheWrite += usage.cacheWrite;
  total.cost += usage.cost;
}

/** Every node of the tree, parents before their children. */
function allNodes(roots: readonly TraceNode[]): TraceNode[] {
  return roots.flatMap((node) => [node, ...allNodes(node.children)]);
}

/** How long a step took (undefined while it runs). */
export function stepDuration(step: TraceStep): number | undefined {
  if (step.kind === "prompt") return undefined;
  return step.end === undefined ? undefined : step.end - step.start;
}

/**
 * The slowest step (a turn, or a tool call that did not start a nested child, whose own steps are counted
 * instead) and the most expensive turn.
 */
function marks(nodes: readonly TraceNode[]): Pick<Trace, "slowest" | "costliest"> {
  let slowest: { ref: StepRef; ms: number } | undefined;
  let costliest: { ref: StepRef; cost: number } | undefined;
  for (const node of nodes) {
    node.steps.forEach((step, index) => {
      const ms = stepDuration(step);
      const container = step.kind === "tool" && (step.childTaskIds?.length ?? 0) > 0;
      if (ms !== undefined && !container && (!slowest || ms > slowest.ms))
        slowest = { ref: { taskId: node.taskId, index }, ms };
      if (step.kind === "turn" && step.cost > 0 && (!costliest || step.cost > costliest.cost))
        costliest = { ref: { taskId: node.taskId, index }, cost: step.cost };
    });
  }
  return { slowest: slowest?.ref, costliest: costliest?.ref };
}

/** The tree: the roots in order, each task's nested children under it (a task is placed once). */
export function buildTrace(input: TraceInput): Trace {
  const byId = new Map(input.tasks.map((facts) => [facts.taskId, facts]));
  const placed = new Set<string>();
  const build = (taskId: string, depth: number): TraceNode | undefined => {
    const facts = byId.get(taskId);
    if (!facts || placed.has(taskId)) return undefined;
    placed.add(taskId);
    const childIds = input.tasks
      .filter((other) => other.parentTaskId === taskId)
      .map((other) => other.taskId)
      .sort();
    const children = childIds
      .map((id) => build(id, depth + 1))
      .filter((node): node is TraceNode => node !== undefined)
      .sort((a, b) => a.start - b.start);
    return nodeOf(facts, depth, children);
  };
  const roots = input.rootIds.map((id) => build(id, 1)).filter((node): node is TraceNode => node !== undefined);
  const nodes = allNodes(roots);
  // A record's usage is its own child's; the tree's is every task's, nested children included.
  const usage = emptyUsage();
  for (const node of nodes) addUsage(usage, node.usage);
  const running = nodes.some((node) => node.end === undefined);
  return {
    id: input.id,
    kind: input.kind,
    roots,
    start: Math.min(...roots.map((node) => node.start)),
    end: running ? undefined : Math.max(...roots.map((node) => node.end ?? node.start)),
    usage,
    taskCount: nodes.length,
    notRun: input.notRun ?? [],
    ...marks(nodes),
  };
}

/** The nested children a tool call started, found in its node's children. */
export function childrenOfCall(node: TraceNode, step: ToolStep): TraceNode[] {
  const ids = step.childTaskIds ?? [];
  return node.children.filter((child) => ids.includes(child.taskId));
}

/** The node's children no tool call of its own names (started while its call still ran, say). */
export function unplacedChildren(node: TraceNode): TraceNode[] {
  const named = new Set(node.steps.flatMap((step) => (step.kind === "tool" ? (step.childTaskIds ?? []) : [])));
  return node.children.filter((child) => !named.has(child.taskId));
}
