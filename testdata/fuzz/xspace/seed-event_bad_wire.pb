
/device:GPU:0"xx