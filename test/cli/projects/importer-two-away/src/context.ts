import { greenhouse } from './index.js';

// What the sensor modules get: the server and when it started.
export const context = { server: greenhouse, since: new Date() };
export type Context = typeof context;
