# Sourced by the scripts that start servers on loopback: free_port FROM prints the first port from
# FROM (up to 200 further) that nothing listens on, or fails naming the calling script.
free_port() {
    local port
    for port in $(seq "$1" $(($1 + 200))); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
    echo "$(basename "$0"): no free port from $1" >&2
    exit 1
}
