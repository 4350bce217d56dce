package train

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/manifest"
)

// ModelName and ModelVersion identify the shipped model.
const (
	ModelName    = "linerank"
	ModelVersion = "1.0.0"
)

// Files written by Write.
const (
	ONNXFile = "model.onnx"
	CardFile = "MODEL_CARD.md"
)

// Manifest describes an exported MLP.
func Manifest(m *Model, threshold float64, kindThresholds map[string]float64, name, version string, training map[string]any) *manifest.Manifest {
	return &manifest.Manifest{
		Name:        name,
		Version:     version,
		Description: "line relevance from lexical, structural, positional and source-type features (one expert per source kind over its base scorer's score, learned corrections and boosted trees where they hold under cross-validation)",
		Family:      manifest.FamilyLineFeatures,
		Model:       ONNXFile,
		Threshold:   threshold,
		Inputs: []manifest.Tensor{{Name: InputName, Role: manifest.RoleFeatures, Type: "float32",
			Shape: []manifest.Dim{{Param: "N"}, {Size: int64(m.F)}}}},
		Outputs: []manifest.Tensor{{Name: OutputName, Role: manifest.RoleScores, Type: "float32",
			Shape: []manifest.Dim{{Param: "N"}}}},
		Features: &manifest.Features{Version: linefeat.Version, Names: append([]string(nil), linefeat.Names...), KindThresholds: kindThresholds},
		Training: training,
	}
}

// Write exports r to dir: model.onnx, model.json and the model card. command is the command
// line that produced it, recorded in the card. Each file is written to a temporary file in
// dir and renamed over its name only once all three are written, so a failed write (a full
// disk) leaves the previous model as it was instead of a truncated model.onnx beside it.
func (r *Result) Write(dir string, cfg Config, command string) error {
	training := map[string]any{
		"cases": r.Cases, "seed": cfg.Seed, "hidden": cfg.Hidden, "epochs": cfg.Epochs,
		"hard_negatives": cfg.HardNegatives, "random_negatives": cfg.RandomNegatives, "command": command,
		"frozen_kinds": cfg.FrozenKinds, "structural_kinds": cfg.StructuralKinds, "linear_kinds": cfg.LinearKinds,
		"trees": cfg.Trees, "tree_kinds": cfg.TreeKinds, "tree_depth": cfg.Depth, "tree_shrink": cfg.Shrink, "tree_lambda": cfg.Lambda,
	}
	man := Manifest(r.Model, r.Threshold, r.KindThresholds, ModelName, ModelVersion, training)
	if err := man.Validate(); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	mb, err := man.Marshal()
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	meta := [][2]string{{"feature_version", linefeat.Version}, {"model_version", ModelVersion}}
	files := map[string][]byte{
		ONNXFile:          r.Model.ONNX("mcp-pruner line relevance model; see MODEL_CARD.md", meta),
		manifest.FileName: mb,
		CardFile:          []byte(r.Card(cfg, command)),
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	names := []string{ONNXFile, manifest.FileName, CardFile}
	temps := make([]string, 0, len(names))
	defer func() {
		for _, t := range temps {
			os.Remove(t) // gone already once renamed
		}
	}()
	for _, name := range names {
		t, err := writeTemp(dir, name, files[name])
		if err != nil {
			return fmt.Errorf("train: %w", err)
		}
		temps = append(temps, t)
	}
	for i, name := range names {
		if err := os.Rename(temps[i], filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	return nil
}

// writeTemp writes data to a new hidden temporary file in dir, named after name, and
// returns its path; the file is synced, so a rename over name installs complete bytes.
func writeTemp(dir, name string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// Card renders the model card: data, features, training command and cross-validated figures.
func (r *Result) Card(cfg Config, command string) string {
	var b strings.Builder
	arch := fmt.Sprintf("one MLP expert per source kind (%s), each %d → %d (ReLU) → 1 (sigmoid), routed by the kind one-hot",
		strings.Join(linefeat.Kinds, ", "), r.Model.F, r.Model.Hidden)
	fmt.Fprintf(&b, "# Model card: %s %s\n\n", ModelName, ModelVersion)
	fmt.Fprintf(&b, "Line-relevance model of the `onnx` scorer family (`--scorer onnx:models/%s`). Input family\n", ModelName)
	fmt.Fprintf(&b, "`line-features` (`%s`): the engine computes %d features per line and the model maps\n", linefeat.Version, r.Model.F)
	fmt.Fprintf(&b, "`features` float32 [N, %d] to `relevance` float32 [N] in [0, 1]. Architecture: %s, with\n", r.Model.F, arch)
	b.WriteString("the training data's mean and standard deviation baked into the graph (Sub, Div, MatMul, Add,\n")
	if slices.ContainsFunc(r.Model.Experts, func(e Expert) bool { return len(e.Trees) > 0 }) {
		b.WriteString("Relu, MatMul, Mul, Sigmoid, Reshape; the trees one ai.onnx.ml TreeEnsembleRegressor under an If that runs it\n")
		b.WriteString("only for a kind that has trees; ONNX IR 8, opset 13, written by\n")
	} else {
		b.WriteString("Relu, MatMul, Mul, Sigmoid, Reshape; no boosted trees; ONNX IR 8, opset 13, written by\n")
	}
	b.WriteString("`scorers/onnx/onnxpb`).\n")
	b.WriteString("Each expert is trained only on the cases of its kind, starting from its base scorer's own score (a skip\n")
	b.WriteString("term on `<base>_logit`) and learning corrections to it; an untrained expert reads `<base>_exact`\n")
	b.WriteString("and returns the base scorer's score (to float32 precision). Base per kind: ")
	for k, kind := range linefeat.Kinds {
		base := BaseHeuristic
		if slices.Contains(cfg.StructuralKinds, kind) {
			base = BaseStructural
		}
		how := "MLP correction"
		switch {
		case slices.Contains(cfg.FrozenKinds, kind):
			how = "untrained"
		case slices.Contains(cfg.LinearKinds, kind):
			how = "linear: skip weight and bias only"
		}
		if k > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s → %s (%s)", kind, base, how)
	}
	b.WriteString(".")
	if len(cfg.LinearKinds) > 0 {
		b.WriteString(" A linear expert keeps its MLP at zero and learns only a rescaling of the base score's logit,\n")
		b.WriteString("which moves the engine's trade-off between a line's score and its token cost: grouped cross-validation\n")
		b.WriteString("showed full MLP corrections hurting held-out repositories, and the rescaling helping.")
	}
	if cfg.Trees > 0 && len(cfg.TreeKinds) > 0 {
		fmt.Fprintf(&b, "\n\nBoosted trees on top of the experts of %s: %d oblivious trees of depth %d per kind (every\n", strings.Join(cfg.TreeKinds, ", "), cfg.Trees, cfg.Depth)
		b.WriteString("node of a level splits on the same feature and threshold, at one of 32 quantile cuts), fitted one after\n")
		fmt.Fprintf(&b, "another to the same listwise loss, each leaf a Newton step −%g·G/(H+%g) clipped to ±1, on the raw features\n", cfg.Shrink, cfg.Lambda)
		b.WriteString("(never the exact columns or the kind one-hot), exported as one ONNX-ML TreeEnsembleRegressor. Unlike\n")
		b.WriteString("the MLP corrections they survive grouped cross-validation on documentation (250 cases over many pages);\n")
		b.WriteString("on commits (four repositories) they were within noise, on Python code (six) and CI logs they lost, so\n")
		b.WriteString("those experts have none.")
	}
	if len(cfg.FrozenKinds) > 0 {
		fmt.Fprintf(&b, " Not trained, kept equal to the base scorer (`--frozen-kinds`; the default rests on earlier runs'\n")
		fmt.Fprintf(&b, "grouped cross-validation, where learned corrections hurt held-out repositories, models/RESULTS.md): %s.", strings.Join(cfg.FrozenKinds, ", "))
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "Default keep threshold: %.4f (the highest, over source kinds, of the score above which %.0f%% of the lines\n", r.Threshold, 100*cfg.KeepShare)
	b.WriteString("lie on the kind's median training case; natural mode only, budget mode ranks by score).")
	if len(r.KindThresholds) > 0 {
		kinds := slices.Sorted(maps.Keys(r.KindThresholds))
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %.4g", k, r.KindThresholds[k])
		}
		fmt.Fprintf(&b, "\nPer kind (`features.kind_thresholds`): %s: a frozen expert is its base scorer and keeps its threshold.", strings.Join(parts, ", "))
	}
	b.WriteString("\n\n")
	b.WriteString("## Data\n\n")
	files := make([]string, 0, len(r.Files))
	for f := range r.Files {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fmt.Fprintf(&b, "- `%s`: %d cases\n", f, r.Files[f])
	}
	if devData(files) {
		b.WriteString("\nThe development cases of `../shared/bench` (see its README for sources and licences); gold\n")
	} else {
		b.WriteString("\nThe cases of the files above; gold\n")
	}
	b.WriteString("lines are positives. Per case, every gold line, the " + fmt.Sprint(cfg.HardNegatives) + " negatives the heuristic or structural scorer rank highest\n")
	fmt.Fprintf(&b, "and %d uniformly sampled other negatives (weighted by the lines they stand for) are kept.\n\n", cfg.RandomNegatives)
	b.WriteString("## Training\n\n")
	fmt.Fprintf(&b, "```\n%s\n```\n\n", command)
	if len(cfg.FrozenKinds) == len(linefeat.Kinds) {
		b.WriteString("Every kind is frozen, so nothing was fitted: the model is its base scorers, exported with the\n")
		b.WriteString("thresholds above. With a kind left out of `--frozen-kinds`, its expert is fitted as follows.\n\n")
	}
	fmt.Fprintf(&b, "Loss: per-case listwise softmax cross-entropy over each line's selection priority, %d·log σ(z) − log(tokens),\n", ScorePower)
	fmt.Fprintf(&b, "the value per token the engine's budget selection ranks by (gold lines should win it), plus %.2f × a\n", cfg.BCEWeight)
	b.WriteString("per-case balanced binary cross-entropy; every data file weighs the same. Adam, ")
	fmt.Fprintf(&b, "%d epochs, %d cases per step,\nlearning rate %g cosine-decayed, L2 %g, seed %d. Single-threaded float64 arithmetic: the same data\n", cfg.Epochs, cfg.Batch, cfg.LearningRate, cfg.L2, cfg.Seed)
	b.WriteString("and configuration give the same model bytes.\n\n")
	b.WriteString("## Features\n\n")
	for i, n := range linefeat.Names {
		fmt.Fprintf(&b, "%d. `%s`\n", i, n)
	}
	b.WriteString("\nDefinitions: `scorers/onnx/linefeat/linefeat.go` (each name's comment).\n\n")
	b.WriteString("## Cross-validated recall\n\n")
	if len(r.CV) == 0 {
		b.WriteString("Not cross-validated in this run.\n")
		return b.String()
	}
	b.WriteString("Grouped K-fold: cases of one repository (SWE-bench project, commit repository, CI project) or one\n")
	b.WriteString("documentation page are always in the same fold; each case is scored by a model trained without\n")
	b.WriteString("its group. Recall of gold lines at a token budget, through the real engine (markers and\n")
	b.WriteString("protected lines counted), macro-averaged over cases, as `pruner bench` measures it.\n\n")
	b.WriteString("| file | budget | scorer | cases | recall | hit rate | reduction |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, row := range r.CV {
		fmt.Fprintf(&b, "| %s | %.0f%% | %s | %d | %.3f | %.3f | %.3f |\n", row.File, 100*row.Budget, row.Scorer, row.Cases, row.Recall, row.HitRate, row.Reduction)
	}
	if len(r.Paired) > 0 {
		b.WriteString("\n### Paired with the baselines\n\n")
		b.WriteString("The model's recall minus a baseline's on the same held-out cases, with a 95% interval (±1.96\n")
		b.WriteString("standard errors of the mean paired difference) and the cases each side wins; an interval above\n")
		b.WriteString("0 is a gain these cases support.\n\n")
		b.WriteString("| file | budget | linerank − | cases | difference | 95% interval | linerank wins | loses |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, p := range r.Paired {
			fmt.Fprintf(&b, "| %s | %.0f%% | %s | %d | %+.3f | %+.3f … %+.3f | %d | %d |\n", p.File, 100*p.Budget, p.Base, p.Cases, p.Diff, p.Low, p.High, p.Better, p.Worse)
		}
	}
	return b.String()
}

// devData reports whether the training files are the development sets of ../shared/bench
// (<source>.dev.jsonl.gz, named <source>.dev here), of which the card may say so.
func devData(files []string) bool {
	for _, f := range files {
		if !strings.HasSuffix(f, ".dev") {
			return false
		}
	}
	return len(files) > 0
}
