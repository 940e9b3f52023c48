import type { Context } from './context.js';

// A sensor module registers its tool through the context, in the v1 style, naming no SDK module.
export function registerSensors(context: Context): void {
  context.server.tool('humidity', 'Relative humidity in percent', async () => ({ content: [{ type: 'text', text: '64' }] }));
}
