import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { server } from './server.js';

await server.connect(new StdioServerTransport());
console.error('deploy-bot ready');
