// Lets an activity's entities keep all their fields on the way out.
//
// The Bot Framework schema's Entity is an open type ("metadata object
// pertaining to an activity": a `type` and whatever that type defines), and
// Teams reads such fields: the AI-generated label is a schema.org Message
// entity with `additionalType: ["AIGeneratedContent"]`, and a streamed reply
// says where it is with a `streaminfo` entity (`streamId`, `streamType`,
// `streamSequence`). botframework-connector's serializer, though, writes only
// the fields its Entity model lists (type, text, mentioned) and drops the
// rest. Declaring the model open (additionalProperties, as @azure/core-client
// understands it) makes the serializer copy the other fields as they are.
// botbuilder is archived upstream, so this will not be fixed there. package.json pins
// botframework-connector to botbuilder's own exact version, so that there is
// one copy of it and this reaches the serializer botbuilder sends with.
import { ConnectorMappers } from 'botframework-connector/lib/connectorApi/connectorClient.js';

interface CompositeMapper {
  type: { additionalProperties?: { type: { name: string } } };
}

const entity = (ConnectorMappers as unknown as Record<string, CompositeMapper>).Entity;
if (!entity?.type) throw new Error('botframework-connector has no Entity mapper: entity-fields.ts needs a look');
entity.type.additionalProperties ??= { type: { name: 'Object' } };

/** The label Teams shows on an answer: "AI generated" (learn.microsoft.com: bot messages with AI-generated content). */
export const AI_GENERATED_ENTITY = {
  type: 'https://schema.org/Message',
  '@type': 'Message',
  '@context': 'https://schema.org',
  additionalType: ['AIGeneratedContent'],
};
