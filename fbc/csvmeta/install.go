package csvmeta

// Install is a CSV's spec.install, reduced to the images of a "deployment" strategy.
type Install struct {
	Strategy string `json:"strategy"`
	Spec     struct {
		Deployments []struct {
			Spec struct {
				Template struct {
					Spec struct {
						Containers     []struct{ Image string } `json:"containers"`
						InitContainers []struct{ Image string } `json:"initContainers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		} `json:"deployments"`
	} `json:"spec"`
}

// OperatorImages lists the container then init-container images of each deployment, in manifest
// order with duplicates and empty values kept; nil unless the strategy is "deployment".
func (in Install) OperatorImages() []string {
	if in.Strategy != "deployment" {
		return nil
	}
	var out []string
	for _, dep := range in.Spec.Deployments {
		for _, c := range dep.Spec.Template.Spec.Containers {
			out = append(out, c.Image)
		}
		for _, c := range dep.Spec.Template.Spec.InitContainers {
			out = append(out, c.Image)
		}
	}
	return out
}
