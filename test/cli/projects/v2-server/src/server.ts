import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

const environments = ['staging', 'production'] as const;

export const server = new McpServer({ name: 'deploy-bot', version: '0.3.0' }, { capabilities: { tools: {} } });

server.registerTool(
  'deploy',
  {
    description: 'Deploy a service; production needs an explicit confirmation.',
    inputSchema: z.object({ service: z.string(), environment: z.enum(environments) }),
  },
  async ({ service, environment }, ctx) => {
    const target = `${service}@${environment}`;
    const confirmation = await ctx.mcpReq.elicitInput({
      mode: 'form',
      message: `Deploy ${target}?`,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Deploy now' } },
        required: ['confirm'],
      },
    });
    if (confirmation.action !== 'accept' || confirmation.content?.confirm !== true) {
      return { content: [{ type: 'text', text: `Deployment of ${target} cancelled.` }] };
    }
    return { content: [{ type: 'text', text: `Deploying ${target}.` }] };
  },
);

server.registerTool(
  'release-notes',
  {
    description: 'Draft release notes with the client model.',
    inputSchema: z.object({ commits: z.array(z.string()) }),
  },
  async ({ commits }, ctx) => {
    const draft = await ctx.mcpReq.requestSampling({
      messages: [{ role: 'user', content: { type: 'text', text: `Write release notes for:\n${commits.join('\n')}` } }],
      maxTokens: 400,
    });
    const text = draft.content.type === 'text' ? draft.content.text : '(no text)';
    return { content: [{ type: 'text', text }] };
  },
);
