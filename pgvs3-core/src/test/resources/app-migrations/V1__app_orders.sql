CREATE TABLE app_orders (id bigserial PRIMARY KEY, total numeric NOT NULL);
