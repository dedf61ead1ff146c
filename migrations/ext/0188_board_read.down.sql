-- outside leader_ext: nothing

-- Back to 0187: the read-first poll sends its read as one statement again.

DROP FUNCTION leader_ext.leader_board(text[], bigint[], text, boolean, bigint);
