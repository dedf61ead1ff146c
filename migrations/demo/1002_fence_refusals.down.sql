DROP TABLE fence_refusals;
