-- Images of messages, stored once by content (a picture read twice, or
-- sent again in a later session, takes its bytes once). The message JSON
-- keeps only the image's media type, name, size and sha256.
-- message_images says which message uses which image, so that deleting a
-- session can drop the images no other message uses.
CREATE TABLE images (
    sha256 TEXT PRIMARY KEY,
    data   BLOB NOT NULL
);

CREATE TABLE message_images (
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    sha256     TEXT    NOT NULL REFERENCES images (sha256)
);

CREATE INDEX message_images_message ON message_images (message_id);
CREATE INDEX message_images_sha256 ON message_images (sha256);
