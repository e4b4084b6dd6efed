// Conversation references of Teams conversations, kept in PostgreSQL for
// proactive messages (the digest scheduler posts through them).
import type pg from 'pg';
import type { ConversationReference } from 'botbuilder';

export async function saveConversationReference(pool: pg.Pool, ref: Partial<ConversationReference>, teamId?: string): Promise<void> {
  if (!ref.conversation?.id) return;
  await pool.query(
    `INSERT INTO conversation_references (conversation_id, conversation_type, team_id, reference, updated_at)
     VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (conversation_id) DO UPDATE SET reference = excluded.reference, conversation_type = excluded.conversation_type,
       team_id = excluded.team_id, updated_at = now()`,
    [ref.conversation.id, ref.conversation.conversationType ?? null, teamId ?? null, JSON.stringify(ref)],
  );
}

export async function loadConversationReference(
  pool: pg.Pool,
  conversationId: string,
): Promise<Partial<ConversationReference> | undefined> {
  const { rows } = await pool.query<{ reference: Partial<ConversationReference> }>(
    'SELECT reference FROM conversation_references WHERE conversation_id = $1',
    [conversationId],
  );
  return rows[0]?.reference;
}

/** Stores the reference of a conversation the bot keeps none of yet; false when it has one (the conversation is known). */
export async function saveNewConversationReference(pool: pg.Pool, ref: Partial<ConversationReference>, teamId?: string): Promise<boolean> {
  if (!ref.conversation?.id) return false;
  const { rowCount } = await pool.query(
    `INSERT INTO conversation_references (conversation_id, conversation_type, team_id, reference, updated_at)
     VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (conversation_id) DO NOTHING`,
    [ref.conversation.id, ref.conversation.conversationType ?? null, teamId ?? null, JSON.stringify(ref)],
  );
  return rowCount === 1;
}
