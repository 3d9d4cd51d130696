


n	notvarint