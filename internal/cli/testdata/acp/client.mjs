// An Agent Client Protocol client for harness9's end-to-end tests, written
// on the official TypeScript SDK (@agentclientprotocol/sdk). It starts the
// agent command given in ACP_AGENT (a JSON array), plays the steps of
// ACP_STEPS (a JSON array, see run below) and prints, as one JSON object
// on stdout, everything the agent sent it: session updates, permission
// requests, file-system calls, and the result of each step. The Go test
// that runs it decides what is right.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const agentCmd = JSON.parse(process.env.ACP_AGENT);
const steps = JSON.parse(process.env.ACP_STEPS);
// Answers to permission requests, in order: option ids, or "dismiss" (the
// "cancelled" outcome, as when the user closes the request).
const answers = JSON.parse(process.env.ACP_ANSWERS || "[]");
// Editor buffers: path → text returned by fs/read_text_file instead of the disk.
const buffers = JSON.parse(process.env.ACP_BUFFERS || "{}");
const fsCaps = JSON.parse(process.env.ACP_FS || "null");

const log = { updates: [], permissions: [], fs: [], steps: [], problems: [] };
const sessions = {}; // step "as" name → session id
let cancelWatch = null; // {sessionId, text, sent}

const child = spawn(agentCmd[0], agentCmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

let ctxRef = null;
const app = acp
  .client({ name: "harness9-test-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    log.updates.push(params);
    const w = cancelWatch;
    if (w && !w.sent && params.sessionId === w.sessionId && JSON.stringify(params.update).includes(w.text)) {
      w.sent = true;
      ctxRef.notify(acp.methods.agent.session.cancel, { sessionId: w.sessionId });
    }
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    log.permissions.push(params);
    const answer = answers.shift();
    if (answer === undefined) {
      log.problems.push("a permission request nobody expected: " + JSON.stringify(params.toolCall.title));
      return { outcome: { outcome: "cancelled" } };
    }
    if (answer === "dismiss") {
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: answer } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    log.fs.push({ op: "read", path: params.path });
    if (params.path in buffers) {
      return { content: buffers[params.path] };
    }
    return { content: readFileSync(params.path, "utf8") };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    log.fs.push({ op: "write", path: params.path, content: params.content });
    writeFileSync(params.path, params.content);
    return {};
  });

// run plays one step:
//   {op: "initialize", protocolVersion?}
//   {op: "new", cwd, mcpServers?, as?}            session/new
//   {op: "load", sessionId, cwd, as?}             session/load
//   {op: "mode", session, modeId}                 session/set_mode
//   {op: "prompt", session, text | blocks, cancelOn?}
//   {op: "close", session}                        session/close
//   {op: "list", cwd?}                            session/list
// session is an "as" name or a literal id.
async function run(ctx, step) {
  const sid = (name) => sessions[name] ?? name;
  switch (step.op) {
    case "initialize":
      return ctx.request(acp.methods.agent.initialize, {
        protocolVersion: step.protocolVersion ?? acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: fsCaps ?? { readTextFile: false, writeTextFile: false }, terminal: true },
        clientInfo: { name: "harness9-test-client", version: "1" },
      });
    case "new": {
      const r = await ctx.request(acp.methods.agent.session.new, { cwd: step.cwd, mcpServers: step.mcpServers ?? [] });
      if (step.as) sessions[step.as] = r.sessionId;
      return r;
    }
    case "load": {
      const r = await ctx.request(acp.methods.agent.session.load, { sessionId: sid(step.sessionId), cwd: step.cwd, mcpServers: [] });
      if (step.as) sessions[step.as] = sid(step.sessionId);
      return r ?? {};
    }
    case "mode":
      return (await ctx.request(acp.methods.agent.session.setMode, { sessionId: sid(step.session), modeId: step.modeId })) ?? {};
    case "prompt": {
      const sessionId = sid(step.session);
      cancelWatch = step.cancelOn ? { sessionId, text: step.cancelOn, sent: false } : null;
      const prompt = step.blocks ?? [{ type: "text", text: step.text }];
      return ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt });
    }
    case "close":
      return (await ctx.request(acp.methods.agent.session.close, { sessionId: sid(step.session) })) ?? {};
    case "list":
      return ctx.request(acp.methods.agent.session.list, step.cwd ? { cwd: step.cwd } : {});
  }
  throw new Error("unknown step " + step.op);
}

try {
  await app.connectWith(stream, async (ctx) => {
    ctxRef = ctx;
    for (const step of steps) {
      const at = log.updates.length;
      try {
        const result = await run(ctx, step);
        log.steps.push({ op: step.op, result, updatesFrom: at, updatesTo: log.updates.length });
      } catch (e) {
        log.steps.push({ op: step.op, error: { code: e.code, message: e.message, data: e.data }, updatesFrom: at, updatesTo: log.updates.length });
      }
    }
  });
} catch (e) {
  log.problems.push("connection: " + (e && e.message));
}
log.sessions = sessions;
child.stdin.end();
const code = await new Promise((resolve) => {
  if (child.exitCode !== null) resolve(child.exitCode);
  else child.on("exit", (c) => resolve(c));
});
log.exitCode = code;
process.stdout.write(JSON.stringify(log) + "\n");
