// The shapes of Slack's Block Kit as the renderers build them (render-blocks.ts,
// native-blocks.ts, the listeners' views): a block is any object with a type.

export type Block = { type: string } & Record<string, unknown>;

export interface SlackMessage {
  /** the notification / fallback text */
  text: string;
  blocks: Block[];
}
