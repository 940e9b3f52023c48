export function bullet(lines: string[]): string {
  return lines.map(line => `- ${line}`).join('\n');
}
