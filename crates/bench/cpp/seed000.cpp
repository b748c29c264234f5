// C++ baseline for the "games on arbitrary graphs" benchmark.
//
// The algorithm (globals + dfs) is copied unchanged from the seed document
// /work/shared/seeds/000_de8bbd3349fc7e77.txt (cp-algorithms, "Games on
// arbitrary graphs"): retrograde analysis by a recursive DFS over the
// reversed graph, with out-degree counters. main() follows the style of the
// seed's "Policeman and thief" example.
//
// Usage:  seed000 [--labels] [FILE]     (also: seed000 FILE --labels)
//   FILE: edge list, one "u v" per line (0-based ids, whitespace separated);
//         blank lines and lines starting with '#' or '%' are skipped.
//         Reads stdin if FILE is absent. n = max id + 1.
//   stdout: "win W loss L draw D", or with --labels one line W/L/D per vertex.
//   stderr: "cpp_ms parse=.. build=.. solve=.." (steady_clock, milliseconds).
//     parse = read + parse the file into an edge list,
//     build = adj_rev + degree (out-degree, parallel edges counted),
//     solve = winning/losing/visited setup + the seed's dfs loop.
//
// Build: g++ -O2 -std=c++17 -pthread -o seed000 seed000.cpp
#include <bits/stdc++.h>
#include <pthread.h>
using namespace std;

// ---- seed code, verbatim ----------------------------------------------------
vector<vector<int>> adj_rev;

vector<bool> winning;
vector<bool> losing;
vector<bool> visited;
vector<int> degree;

void dfs(int v) {
    visited[v] = true;
    for (int u : adj_rev[v]) {
        if (!visited[u]) {
            if (losing[v])
                winning[u] = true;
            else if (--degree[u] == 0)
                losing[u] = true;
            else
                continue;
            dfs(u);
        }
    }
}
// ---- end of seed code -------------------------------------------------------

static int g_argc;
static char** g_argv;
static int g_rc = 0;

static double ms_since(chrono::steady_clock::time_point t) {
    return chrono::duration<double, milli>(chrono::steady_clock::now() - t).count();
}

static void* run(void*) {
    // Faster iostreams so the baseline is not handicapped by a slow reader.
    ios::sync_with_stdio(false);
    cin.tie(nullptr);

    bool labels = false;
    const char* path = nullptr;
    for (int i = 1; i < g_argc; i++) {
        if (strcmp(g_argv[i], "--labels") == 0) labels = true;
        else path = g_argv[i];
    }

    // ---- parse ----
    auto t0 = chrono::steady_clock::now();
    ifstream file;
    if (path) {
        file.open(path);
        if (!file) { cerr << "cannot open " << path << "\n"; g_rc = 1; return nullptr; }
    }
    istream& in = path ? static_cast<istream&>(file) : cin;
    vector<pair<int, int>> edges;
    long long max_id = -1;
    string line;
    long long lineno = 0;
    while (getline(in, line)) {
        lineno++;
        const char* s = line.c_str();
        while (*s == ' ' || *s == '\t' || *s == '\r') s++;
        if (*s == '\0' || *s == '#' || *s == '%') continue;
        char* e1;
        char* e2;
        long long u = strtoll(s, &e1, 10);
        long long v = strtoll(e1, &e2, 10);
        if (e1 == s || e2 == e1 || u < 0 || v < 0 || u >= INT_MAX || v >= INT_MAX) {
            cerr << "bad edge on line " << lineno << ": " << line << "\n";
            g_rc = 1;
            return nullptr;
        }
        edges.push_back({(int)u, (int)v});
        max_id = max(max_id, max(u, v));
    }
    int n = (int)(max_id + 1);
    double t_parse = ms_since(t0);

    // ---- build ----
    auto t1 = chrono::steady_clock::now();
    adj_rev.assign(n, {});
    degree.assign(n, 0);
    for (auto [u, v] : edges) {
        adj_rev[v].push_back(u);
        degree[u]++;
    }
    double t_build = ms_since(t1);

    // ---- solve ----
    auto t2 = chrono::steady_clock::now();
    winning.assign(n, false);
    losing.assign(n, false);
    visited.assign(n, false);
    for (int v = 0; v < n; v++)
        if (degree[v] == 0)  // no move: the player to move loses
            losing[v] = true;
    for (int v = 0; v < n; v++)
        if ((winning[v] || losing[v]) && !visited[v])
            dfs(v);
    double t_solve = ms_since(t2);

    // ---- output ----
    if (labels) {
        string out(2 * (size_t)n, '\n');
        for (int v = 0; v < n; v++)
            out[2 * (size_t)v] = winning[v] ? 'W' : losing[v] ? 'L' : 'D';
        cout << out;
    } else {
        long long w = 0, l = 0;
        for (int v = 0; v < n; v++) { w += winning[v]; l += losing[v]; }
        cout << "win " << w << " loss " << l << " draw " << (n - w - l) << "\n";
    }
    cout.flush();
    cerr << fixed << setprecision(3) << "cpp_ms parse=" << t_parse
         << " build=" << t_build << " solve=" << t_solve << "\n";
    return nullptr;
}

int main(int argc, char** argv) {
    g_argc = argc;
    g_argv = argv;
    // The only change to the seed's algorithm: dfs is recursive and on a deep
    // graph (e.g. a 10M-vertex path or random graph) its recursion depth can
    // reach n, which overflows the default 8 MB stack. So the whole program
    // body runs on a thread with a 4 GiB stack (virtual; pages are committed
    // only as the recursion actually touches them).
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (pthread_attr_setstacksize(&attr, (size_t)4 << 30) != 0) {
        cerr << "pthread_attr_setstacksize failed\n";
        return 1;
    }
    pthread_t th;
    if (pthread_create(&th, &attr, run, nullptr) != 0) {
        cerr << "pthread_create failed (cannot reserve a 4 GiB stack)\n";
        return 1;
    }
    pthread_join(th, nullptr);
    pthread_attr_destroy(&attr);
    return g_rc;
}
