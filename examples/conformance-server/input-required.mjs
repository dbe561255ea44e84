// The 2026-07-28 multi-round-trip fixtures (SEP-2322) of server-v2.mjs: tools, and one prompt, that answer
// with v2's `inputRequired(...)` until the client retries with the `inputResponses` they asked for. The
// `requestState` they mint is HMAC-signed by the SDK's codec (a per-process key: each round may land on
// any instance the handler keeps, all in this process), so a tampered one is refused (-32602).
import { randomBytes } from 'node:crypto';
import { createRequestStateCodec, inputRequired, inputResponse } from '@modelcontextprotocol/server';

export const requestStateCodec = createRequestStateCodec({ key: randomBytes(32) });

const askName = (message) => inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
const askConfirm = () => inputRequired.elicit({ message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } });
const ask = (text, maxTokens) => inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens });
const text = (value) => ({ content: [{ type: 'text', text: value }] });

/** The answers a retry carries for every key, or undefined when one is missing (then the tool asks again). */
function answers(ctx, keys) {
  const views = keys.map((key) => inputResponse(ctx.mcpReq.inputResponses, key));
  return views.every((view) => view.kind !== 'missing') ? views : undefined;
}

/** Whether this round echoes the state minted for `step` (the codec has verified it already). */
const stateAt = (ctx, step) => ctx.mcpReq.requestState()?.step === step;

async function confirmWithState(ctx) {
  if (answers(ctx, ['confirm']) && stateAt(ctx, 'confirm')) return text('Confirmed: state-ok');
  return inputRequired({ inputRequests: { confirm: askConfirm() }, requestState: await requestStateCodec.mint({ step: 'confirm' }) });
}

const noArguments = { type: 'object', properties: {} };

/** name -> { description, run(ctx) } */
const handlers = {
  test_input_required_result_elicitation: {
    description: 'Asks for the user name by elicitation, then greets',
    run: (ctx) => {
      const [name] = answers(ctx, ['user_name']) ?? [];
      return name ? text(`Hello, ${name.content?.name}!`) : inputRequired({ inputRequests: { user_name: askName('What is your name?') } });
    },
  },
  test_input_required_result_sampling: {
    description: 'Asks the client to sample an answer, then returns it',
    run: (ctx) => {
      const [reply] = answers(ctx, ['capital_question']) ?? [];
      if (reply) return text(`The model said: ${reply.result.content?.text}`);
      return inputRequired({ inputRequests: { capital_question: ask('What is the capital of France?', 100) } });
    },
  },
  test_input_required_result_list_roots: {
    description: "Asks for the client's roots, then lists them",
    run: (ctx) => {
      const [roots] = answers(ctx, ['client_roots']) ?? [];
      if (roots) return text(`Roots: ${roots.roots.map((root) => root.uri).join(', ')}`);
      return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    },
  },
  test_input_required_result_request_state: {
    description: 'Asks for a confirmation with signed requestState, then checks the echoed state',
    run: confirmWithState,
  },
  test_input_required_result_tampered_state: {
    description: 'As test_input_required_result_request_state: a tampered requestState is refused (-32602)',
    run: confirmWithState,
  },
  test_input_required_result_multiple_inputs: {
    description: 'Asks for an elicitation, a sample and the roots at once',
    run: async (ctx) => {
      const all = answers(ctx, ['user_name', 'greeting', 'client_roots']);
      if (all && stateAt(ctx, 'all')) return text(`Hello, ${all[0].content?.name}: ${all[1].result.content?.text} (${all[2].roots.length} roots)`);
      return inputRequired({
        inputRequests: { user_name: askName('What is your name?'), greeting: ask('Generate a greeting', 50), client_roots: inputRequired.listRoots() },
        requestState: await requestStateCodec.mint({ step: 'all' }),
      });
    },
  },
  test_input_required_result_multi_round: {
    description: 'Asks for a name, then a colour (a new requestState each round), then answers',
    run: async (ctx) => {
      const [color] = answers(ctx, ['step2']) ?? [];
      if (color && stateAt(ctx, 'step2')) return text(`Favourite colour: ${color.content?.color}`);
      if (answers(ctx, ['step1']) && stateAt(ctx, 'step1')) {
        const step2 = inputRequired.elicit({
          message: 'Step 2: What is your favorite color?',
          requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
        });
        return inputRequired({ inputRequests: { step2 }, requestState: await requestStateCodec.mint({ step: 'step2' }) });
      }
      return inputRequired({ inputRequests: { step1: askName('Step 1: What is your name?') }, requestState: await requestStateCodec.mint({ step: 'step1' }) });
    },
  },
  test_input_required_result_capabilities: {
    description: 'Asks only for what the client declared it can give (sampling, elicitation)',
    run: (ctx, server) => {
      if (answers(ctx, ['question']) || answers(ctx, ['name'])) return text('Thanks');
      const declared = server.getClientCapabilities() ?? {};
      const inputRequests = {};
      if (declared.sampling) inputRequests.question = ask('What is the capital of France?', 100);
      if (declared.elicitation) inputRequests.name = askName('What is your name?');
      return Object.keys(inputRequests).length > 0 ? inputRequired({ inputRequests }) : text('Nothing to ask this client');
    },
  },
  test_missing_capability: {
    description: 'Needs sampling whatever the client declared: a client without it gets -32021',
    run: () => inputRequired({ inputRequests: { question: ask('What is the capital of France?', 100) } }),
  },
};

export const inputRequiredTools = Object.entries(handlers).map(([name, { description }]) => ({ name, description, inputSchema: noArguments }));

/** Runs one of these tools; undefined when `name` is not one of them. */
export function runInputRequiredTool(name, ctx, server) {
  return handlers[name]?.run(ctx, server);
}

export const inputRequiredPrompt = { name: 'test_input_required_result_prompt', description: 'A prompt that asks for its context first' };

export function getInputRequiredPrompt(ctx) {
  const [context] = answers(ctx, ['user_context']) ?? [];
  if (context) return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${context.content?.context}` } }] };
  const user_context = inputRequired.elicit({
    message: 'What context should the prompt use?',
    requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
  });
  return inputRequired({ inputRequests: { user_context } });
}
