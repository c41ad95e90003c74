-- +goose Up
-- The secrets shop platforms sign a brand's webhooks with (svc.WebhookSecret):
-- kept as given, since an HMAC is verified with the secret itself.
CREATE TABLE webhook_secrets (
    brand_id   text NOT NULL REFERENCES brands (id),
    platform   text NOT NULL,
    secret     text NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (brand_id, platform)
);

-- +goose Down
DROP TABLE webhook_secrets;
