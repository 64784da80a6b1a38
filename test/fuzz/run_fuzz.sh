#!/bin/sh
exec "$1" -max_total_time="$2"
