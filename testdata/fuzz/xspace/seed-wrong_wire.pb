
abcd