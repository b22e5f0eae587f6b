// The official MCP TypeScript SDK client: lists the tools, then makes each call given on the command
// line, and prints one JSON document with what it saw (driven by test_keyed_tools_sdk_clients.py).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, key, callsJson] = process.argv.slice(2);
const headers = key ? { Authorization: `Bearer ${key}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client({ name: "vessel-service-ts-test", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const results = [];
for (const [name, args] of JSON.parse(callsJson)) {
  try {
    const result = await client.callTool({ name, arguments: args });
    results.push({
      name,
      isError: Boolean(result.isError),
      structured: result.structuredContent ?? null,
      text: result.content?.[0]?.text ?? null,
    });
  } catch (error) {
    results.push({ name, isError: true, structured: null, text: `client: ${error.message}` });
  }
}
console.log(JSON.stringify({
  tools: listed.tools.map((tool) => ({ name: tool.name, outputSchema: tool.outputSchema ?? null })),
  results,
}));
await client.close();
