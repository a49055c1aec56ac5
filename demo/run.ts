/**
 * `npm run demo`: a delegation end to end with the real pi, offline: pi 0.73.1, or pi 1.x on the bundled Node 22
 * under `PI_E2E_PI=1` (the same choice as the end-to-end tests, test/harness/pi-under-test.ts). A scripted fake model plays both
 * the main agent and the subagent: the main agent delegates a question to the built-in `explore` agent, the
 * explore subagent (its own pi process, read-only tools) searches a small sample project, and the main agent
 * reports its answer. Everything runs in a throw-away pi set-up; nothing touches ~/.pi.
 */
import { FakeModel, messageText, type FakeRequest } from "../test/harness/fake-model.ts";
import { spawnSync } from "node:child_process";
import { createPiEnv, EXTENSION_ENTRY, PI, runPi } from "../test/harness/pi-env.ts";
import { killProcessesWithMarker, waitForNoProcesses } from "../test/harness/processes.ts";

const QUESTION = "Where is the greeting text defined in this project, and what does it say? Use a subagent.";
const TASK =
  "Find where the greeting text is defined in the project in the current directory. Report the file path, the line, and the exact text. Output: one short paragraph.";

const bold = (text: string) => (process.stdout.isTTY ? `\u001b[1m${text}\u001b[22m` : text);
const dim = (text: string) => (process.stdout.isTTY ? `\u001b[2m${text}\u001b[22m` : text);
const indent = (text: string, by = "   ") =>
  text
    .split("\n")
    .map((line) => by + line)
    .join("\n");

function isExploreChild(req: FakeRequest): boolean {
  return req.system.includes("You are a code explorer");
}

async function main(): Promise<void> {
  const fake = await new FakeModel().start();
  const env = createPiEnv({ baseUrl: fake.baseUrl, warmChildren: true });
  env.writeWorkFile(
    "src/greet.ts",
    'export const GREETING = "Hello from pi-subagent-dispatch!";\n\nexport function greet(): string {\n  return GREETING;\n}\n',
  );
  env.writeWorkFile("README.md", "# sample project\n\nA tiny project for the demo.\n");

  // The script of the fake model: the main agent delegates; the child reads the file, then answers; the main
  // agent reports.
  fake
    .on({
      when: (r) => !isExploreChild(r) && r.lastRole === "user",
      reply: { toolCalls: [{ name: "subagent", arguments: { agent: "explore", task: TASK } }] },
    })
    .on({
      when: (r) => isExploreChild(r) && r.lastRole === "user",
      reply: { toolCalls: [{ name: "read", arguments: { path: "src/greet.ts" } }] },
    })
    .on({
      when: (r) => isExploreChild(r) && r.lastRole === "tool",
      reply: {
        text: 'The greeting is defined in src/greet.ts, line 1: `export const GREETING = "Hello from pi-subagent-dispatch!";`',
      },
    })
    .on({
      when: (r) => !isExploreChild(r) && r.lastRole === "tool",
      reply: (r) => ({ text: `The explore subagent found it:\n\n${r.lastText.split("\n\n[subagent session:")[0]}` }),
    });

  const nodeVersion = spawnSync(PI.node, ["--version"], { encoding: "utf8" }).stdout.trim();
  console.log(
    bold("pi-subagent-dispatch demo") +
      dim(`  (real ${PI.label} on Node ${nodeVersion}, offline, scripted fake model)`),
  );
  console.log(dim(`pi's agent dir: ${env.agentDir}\nproject:        ${env.workDir}\n`));
  console.log(`${bold("1.")} You ask pi:  ${QUESTION}`);
  const started = Date.now();
  try {
    const result = await runPi(["-e", EXTENSION_ENTRY, "-p", QUESTION], {
      env: env.env,
      cwd: env.workDir,
      timeoutMs: 120_000,
    });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (result.code !== 0) throw new Error(`pi exited with ${result.code}:\n${result.stderr}`);

    const first = fake.requests[0]!;
    console.log(`${bold("2.")} The main agent sees the roster of subagents in its system prompt:`);
    console.log(dim(indent(first.system.slice(first.system.indexOf("## Available Subagents")))));
    console.log(
      `${bold("3.")} It calls the subagent tool:  subagent {agent: "explore", task: "${TASK.slice(0, 60)}…"}`,
    );
    const child = fake.requests.find(isExploreChild)!;
    console.log(
      `${bold("4.")} A child pi starts for the explore agent, with its own prompt and only the tools ${child.tools.join(", ")}.`,
    );
    console.log(`   Its first message: ${dim(messageText(child.messages.find((m) => m.role === "user")))}`);
    const childFollowUp = fake.requests.filter(isExploreChild).at(-1)!;
    console.log(`   It calls read on src/greet.ts and gets:`);
    console.log(dim(indent(childFollowUp.lastText.trim(), "     ")));
    const toolResult = fake.requests.at(-1)!.lastText;
    console.log(`${bold("5.")} The subagent's answer comes back to the main agent as the tool's result:`);
    console.log(dim(indent(toolResult)));
    console.log(`${bold("6.")} pi's final answer (stdout of pi -p):`);
    console.log(indent(result.stdout.trim()));
    const left = await waitForNoProcesses(env.marker);
    console.log(
      dim(`\nDone in ${seconds} s; ${fake.requests.length} model calls; processes left behind: ${left.length}.`),
    );
    if (left.length > 0) process.exitCode = 1;
  } finally {
    killProcessesWithMarker(env.marker);
    env.cleanup();
    await fake.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
