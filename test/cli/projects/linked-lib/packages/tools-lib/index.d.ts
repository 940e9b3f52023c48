import { z } from 'zod';

/** A tool's input: a zod schema, or a plain JSON Schema object. */
export type ToolInputSchema = z.ZodType | Record<string, unknown>;

export interface ToolOptions {
  name?: string;
  description?: string;
  parameters?: ToolInputSchema;
  outputSchema?: ToolInputSchema;
}

/** Marks a method as a tool; the library registers it with its server. */
export declare const Tool: (options: ToolOptions) => (target: object, propertyKey?: string | symbol, descriptor?: PropertyDescriptor) => void;
