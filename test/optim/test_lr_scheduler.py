"""Learning-rate schedulers: the lr sequences (two param groups, lr 0.1 and 0.05, SGD with momentum
0.9) are literal output of PyTorch 2.13's schedulers, generated once with the reference torch and
pasted here; the recursive (chainable) formulas must give them to the last bit."""
import math
import warnings

import pytest
import torch
from torch.optim import lr_scheduler as L

# Generated once with PyTorch 2.13 (get_last_lr() after construction, then after each of 12
# optimizer.step(); scheduler.step() pairs).
PYTORCH_SEQUENCES = {
    'StepLR': [[0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.05, 0.025], [0.05, 0.025], [0.05, 0.025], [0.025, 0.0125], [0.025, 0.0125], [0.025, 0.0125], [0.0125, 0.00625], [0.0125, 0.00625], [0.0125, 0.00625], [0.00625, 0.003125]],
    'MultiStepLR': [[0.1, 0.05], [0.1, 0.05], [0.010000000000000002, 0.005000000000000001], [0.010000000000000002, 0.005000000000000001], [0.010000000000000002, 0.005000000000000001], [0.00010000000000000005, 5.000000000000002e-05], [0.00010000000000000005, 5.000000000000002e-05], [0.00010000000000000005, 5.000000000000002e-05], [0.00010000000000000005, 5.000000000000002e-05], [1.0000000000000006e-05, 5.000000000000003e-06], [1.0000000000000006e-05, 5.000000000000003e-06], [1.0000000000000006e-05, 5.000000000000003e-06], [1.0000000000000006e-05, 5.000000000000003e-06]],
    'ExponentialLR': [[0.1, 0.05], [0.09000000000000001, 0.045000000000000005], [0.08100000000000002, 0.04050000000000001], [0.07290000000000002, 0.03645000000000001], [0.06561000000000002, 0.03280500000000001], [0.05904900000000002, 0.02952450000000001], [0.05314410000000002, 0.02657205000000001], [0.04782969000000002, 0.02391484500000001], [0.043046721000000024, 0.021523360500000012], [0.03874204890000002, 0.01937102445000001], [0.03486784401000002, 0.01743392200500001], [0.03138105960900001, 0.015690529804500006], [0.028242953648100012, 0.014121476824050006]],
    'CosineAnnealingLR': [[0.1, 0.05], [0.0905463412215599, 0.045320916362186214], [0.06579634122155989, 0.03307091636218621], [0.035203658778440096, 0.017929083637813786], [0.010453658778440105, 0.005679083637813789], [0.001, 0.001], [0.010453658778440102, 0.005679083637813788], [0.03520365877844012, 0.017929083637813797], [0.06579634122155993, 0.03307091636218623], [0.09054634122155995, 0.04532091636218624], [0.10000000000000005, 0.05000000000000003], [0.09054634122155998, 0.045320916362186256], [0.06579634122155995, 0.03307091636218624]],
    'LambdaLR': [[0.1, 0.05], [0.096, 0.048], [0.09225, 0.046125], [0.0887375, 0.04436875], [0.085450625, 0.0427253125], [0.08237809374999999, 0.041189046874999996], [0.07950918906249999, 0.03975459453124999], [0.07683372960937498, 0.03841686480468749], [0.07434204312890623, 0.037171021564453115], [0.07202494097246091, 0.036012470486230456], [0.06987369392383787, 0.034936846961918934], [0.06788000922764596, 0.03394000461382298], [0.06603600876626367, 0.033018004383131835]],
    'LinearLR': [[0.025, 0.0125], [0.035833333333333335, 0.017916666666666668], [0.046666666666666676, 0.023333333333333338], [0.057500000000000016, 0.028750000000000008], [0.06833333333333334, 0.03416666666666667], [0.07916666666666669, 0.039583333333333345], [0.09000000000000002, 0.04500000000000001], [0.09000000000000002, 0.04500000000000001], [0.09000000000000002, 0.04500000000000001], [0.09000000000000002, 0.04500000000000001], [0.09000000000000002, 0.04500000000000001], [0.09000000000000002, 0.04500000000000001], [0.09000000000000002, 0.04500000000000001]],
    'SequentialLR': [[0.010000000000000002, 0.005000000000000001], [0.04, 0.02], [0.07, 0.035], [0.1, 0.05], [0.1, 0.05], [0.09330127018922195, 0.046650635094610975], [0.07500000000000001, 0.037500000000000006], [0.05, 0.025], [0.025000000000000012, 0.012500000000000006], [0.006698729810778065, 0.0033493649053890325], [0.0, 0.0], [0.006698729810778065, 0.0033493649053890325], [0.025, 0.0125]],
    'OneCycleLR_cos': [[0.040000000000000036, 0.020000000000000018], [0.3497896542195831, 0.17489482710979154], [0.8792851591221287, 0.43964257956106434], [0.9944154354509117, 0.49720771772545586], [0.9330129698414117, 0.46650648492070584], [0.811745653949763, 0.4058728269748815], [0.6473789976951033, 0.32368949884755166], [0.46263710266697505, 0.23131855133348753], [0.28306099820869923, 0.14153049910434962], [0.1334775301888306, 0.0667387650944153], [0.03456698742539522, 0.01728349371269761], [4e-06, 2e-06], [0.034566987425395164, 0.017283493712697582]],
    'OneCycleLR_linear_3phase': [[0.032, 0.032], [0.41600000000000004, 0.41600000000000004], [0.8, 0.8], [0.41600000000000004, 0.41600000000000004], [0.03200000000000003, 0.03200000000000003], [0.027429028571428572, 0.027429028571428572], [0.022858057142857144, 0.022858057142857144], [0.018287085714285715, 0.018287085714285715], [0.013716114285714287, 0.013716114285714287], [0.009145142857142859, 0.009145142857142859], [0.00457417142857143, 0.00457417142857143], [3.2000000000018125e-06, 3.2000000000018125e-06], [-0.004567771428571427, -0.004567771428571427]],
    'ConstantLR': [[0.05, 0.025], [0.05, 0.025], [0.05, 0.025], [0.05, 0.025], [0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.1, 0.05]],
    'PolynomialLR': [[0.1, 0.05], [0.0765625, 0.03828125], [0.05625, 0.028125], [0.03906250000000001, 0.019531250000000003], [0.02500000000000001, 0.012500000000000004], [0.014062500000000006, 0.007031250000000003], [0.006250000000000002, 0.003125000000000001], [0.0015625000000000005, 0.0007812500000000003], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
    'MultiplicativeLR': [[0.1, 0.05], [0.09000000000000001, 0.045000000000000005], [0.08100000000000002, 0.04050000000000001], [0.07290000000000002, 0.03645000000000001], [0.06561000000000002, 0.03280500000000001], [0.05904900000000002, 0.02952450000000001], [0.05314410000000002, 0.02657205000000001], [0.04782969000000002, 0.02391484500000001], [0.043046721000000024, 0.021523360500000012], [0.03874204890000002, 0.01937102445000001], [0.03486784401000002, 0.01743392200500001], [0.03138105960900001, 0.015690529804500006], [0.028242953648100012, 0.014121476824050006]],
}

SCHEDULERS = {
    "StepLR": lambda o: L.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda o: L.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.1),
    "ExponentialLR": lambda o: L.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda o: L.CosineAnnealingLR(o, T_max=5, eta_min=0.001),
    "LambdaLR": lambda o: L.LambdaLR(o, lr_lambda=lambda e: 0.95 ** e + e / 100),
    "LinearLR": lambda o: L.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=6),
    "SequentialLR": lambda o: L.SequentialLR(o, [L.LinearLR(o, start_factor=0.1, total_iters=3),
                                                 L.CosineAnnealingLR(o, T_max=6)], milestones=[4]),
    "OneCycleLR_cos": lambda o: L.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=12),
    "OneCycleLR_linear_3phase": lambda o: L.OneCycleLR(o, max_lr=0.8, total_steps=12, anneal_strategy="linear",
                                                       three_phase=True, pct_start=0.25),
    "ConstantLR": lambda o: L.ConstantLR(o, factor=0.5, total_iters=4),
    "PolynomialLR": lambda o: L.PolynomialLR(o, total_iters=8, power=2.0),
    "MultiplicativeLR": lambda o: L.MultiplicativeLR(o, lr_lambda=lambda e: 0.9),
}

PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.1, 0.2, 0.3, 0.3]
# Generated once with PyTorch 2.13, as above, stepping with PLATEAU_METRICS.
PLATEAU_MIN_REL = [[0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.05, 0.025], [0.05, 0.025], [0.05, 0.025], [0.05, 0.025], [0.025, 0.02], [0.025, 0.02], [0.025, 0.02], [0.025, 0.02], [0.025, 0.02], [0.025, 0.02], [0.025, 0.02], [0.0125, 0.02]]
PLATEAU_MAX_ABS = [[0.1, 0.05], [0.1, 0.05], [0.1, 0.05], [0.010000000000000002, 0.005000000000000001], [0.010000000000000002, 0.005000000000000001], [0.0010000000000000002, 0.0005000000000000001], [0.0010000000000000002, 0.0005000000000000001], [0.00010000000000000003, 5.0000000000000016e-05], [0.00010000000000000003, 5.0000000000000016e-05], [1.0000000000000004e-05, 5.000000000000002e-06], [1.0000000000000004e-05, 5.000000000000002e-06], [1.0000000000000004e-06, 5.000000000000002e-07], [1.0000000000000004e-06, 5.000000000000002e-07], [1.0000000000000005e-07, 5.0000000000000024e-08], [1.0000000000000005e-07, 5.0000000000000024e-08], [1.0000000000000005e-08, 5.0000000000000026e-09], [1.0000000000000005e-08, 5.0000000000000026e-09]]
ONE_CYCLE_MOMENTUM = [0.95, 0.8505584586887436, 0.8688255099070633, 0.9037365046793212, 0.9366525935914912, 0.95]
ONE_CYCLE_BETAS = [(0.95, 0.999), (0.8547619047619047, 0.999), (0.8785714285714286, 0.999), (0.9023809523809524, 0.999), (0.9261904761904761, 0.999), (0.95, 0.999)]
STEPLR_STATE = {'step_size': 2, 'gamma': 0.1, 'base_lrs': [0.1], 'last_epoch': 0, '_step_count': 1, '_is_initial': False, '_get_lr_called_within_step': False, '_last_lr': [0.1]}
PLATEAU_STATE = {'factor': 0.1, 'default_min_lr': 0, 'min_lrs': [0], 'patience': 10, 'cooldown': 0, 'eps': 1e-08, 'last_epoch': 0, '_last_lr': [0.1], 'mode_worse': math.inf, 'mode': 'min', 'threshold': 0.0001, 'threshold_mode': 'rel', 'best': math.inf, 'cooldown_counter': 0, 'num_bad_epochs': 0}
ONE_CYCLE_GROUP_KEYS = ['base_momentum', 'dampening', 'differentiable', 'foreach', 'fused', 'initial_lr', 'lr', 'max_lr', 'max_momentum', 'maximize', 'min_lr', 'momentum', 'nesterov', 'weight_decay']


def _optimizer(cls=torch.optim.SGD, **kw):
    w = torch.zeros(2, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    kw = kw or {"lr": 0.1, "momentum": 0.9}
    return cls([{"params": [w]}, {"params": [b], "lr": 0.05}], **kw)


def _run(scheduler, opt, steps, metrics=None):
    out = [scheduler.get_last_lr()]
    for i in range(steps):
        opt.step()
        if metrics is None:
            scheduler.step()
        else:
            scheduler.step(metrics[i])
        out.append(scheduler.get_last_lr())
    return out


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_lr_sequence_is_pytorchs(name):
    opt = _optimizer()
    scheduler = SCHEDULERS[name](opt)
    assert _run(scheduler, opt, 12) == PYTORCH_SEQUENCES[name]
    assert [g["lr"] for g in opt.param_groups] == PYTORCH_SEQUENCES[name][-1]


def test_reduce_on_plateau_min_rel_with_cooldown_and_per_group_min_lr():
    opt = _optimizer()
    s = L.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1, min_lr=[0.01, 0.02])
    assert _run(s, opt, 16, PLATEAU_METRICS) == PLATEAU_MIN_REL


def test_reduce_on_plateau_max_abs():
    opt = _optimizer()
    s = L.ReduceLROnPlateau(opt, mode="max", threshold_mode="abs", threshold=0.05, patience=1)
    assert _run(s, opt, 16, PLATEAU_METRICS) == PLATEAU_MAX_ABS


def test_reduce_on_plateau_state_dict_and_errors():
    w = torch.zeros(2, requires_grad=True)
    s = L.ReduceLROnPlateau(torch.optim.SGD([w], lr=0.1))
    assert s.state_dict() == PLATEAU_STATE
    with pytest.raises(ValueError, match=r"^Factor should be < 1.0.$"):
        L.ReduceLROnPlateau(torch.optim.SGD([w], lr=0.1), factor=1.0)
    with pytest.raises(ValueError, match=r"^mode avg is unknown!$"):
        L.ReduceLROnPlateau(torch.optim.SGD([w], lr=0.1), mode="avg")
    with pytest.raises(ValueError, match=r"^threshold mode x is unknown!$"):
        L.ReduceLROnPlateau(torch.optim.SGD([w], lr=0.1), threshold_mode="x")
    with pytest.raises(ValueError, match=r"^expected 1 min_lrs, got 2$"):
        L.ReduceLROnPlateau(torch.optim.SGD([w], lr=0.1), min_lr=[0.1, 0.2])


def test_one_cycle_cycles_sgd_momentum_and_adam_beta1():
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    s = L.OneCycleLR(opt, max_lr=1.0, total_steps=6)
    assert sorted(k for k in opt.param_groups[0] if k != "params") == ONE_CYCLE_GROUP_KEYS
    momenta = [opt.param_groups[0]["momentum"]]
    for _ in range(5):
        opt.step()
        s.step()
        momenta.append(opt.param_groups[0]["momentum"])
    assert momenta == ONE_CYCLE_MOMENTUM
    s.step()
    with pytest.raises(ValueError, match=r"^Tried to step 7 times. The specified number of total steps is 6$"):
        s.step()

    opt = torch.optim.Adam([w], lr=0.1)
    s = L.OneCycleLR(opt, max_lr=1.0, total_steps=6, anneal_strategy="linear")
    betas = [opt.param_groups[0]["betas"]]
    for _ in range(5):
        opt.step()
        s.step()
        betas.append(opt.param_groups[0]["betas"])
    assert betas == ONE_CYCLE_BETAS


def test_one_cycle_argument_errors():
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match=r"^You must define either total_steps OR \(epochs AND steps_per_epoch\)$"):
        L.OneCycleLR(opt, max_lr=1.0)
    with pytest.raises(ValueError, match=r"^Expected positive integer total_steps, but got 0$"):
        L.OneCycleLR(opt, max_lr=1.0, total_steps=0)
    with pytest.raises(ValueError, match=r"^Expected float between 0 and 1 pct_start, but got 1$"):
        L.OneCycleLR(opt, max_lr=1.0, total_steps=5, pct_start=1)
    with pytest.raises(ValueError, match=r"^anneal_strategy must be one of 'cos' or 'linear', instead got exp$"):
        L.OneCycleLR(opt, max_lr=1.0, total_steps=5, anneal_strategy="exp")
    with pytest.raises(ValueError, match=r"^max_lr must have the same length as optimizer.param_groups. max_lr has "
                                         r"2 values, param_groups has 1.$"):
        L.OneCycleLR(opt, max_lr=[1.0, 2.0], total_steps=5)
    s = L.OneCycleLR(opt, max_lr=1.0, epochs=2, steps_per_epoch=3)
    assert s.total_steps == 6


def test_scheduler_step_before_optimizer_step_warns():
    opt = _optimizer()
    s = L.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"^Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        s.step()
    opt = _optimizer()
    s = L.StepLR(opt, step_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        s.step()


def test_overriding_optimizer_step_after_scheduler_warns():
    opt = _optimizer()
    s = L.ExponentialLR(opt, gamma=0.5)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match=r"^Seems like `optimizer.step\(\)` has been overridden"):
        s.step()


def test_get_lr_outside_step_warns_and_epoch_argument_uses_closed_form():
    opt = _optimizer()
    s = L.CosineAnnealingLR(opt, T_max=10)
    with pytest.warns(UserWarning, match=r"^To get the last learning rate computed by the scheduler, please use "
                                         r"`get_last_lr\(\)`.$"):
        s.get_lr()
    opt.step()
    with pytest.warns(UserWarning, match=r"^The epoch parameter in `scheduler.step\(\)` was not necessary"):
        s.step(5)
    assert s.get_last_lr() == [0.05 + 0.05 * math.cos(math.pi / 2), 0.025 + 0.025 * math.cos(math.pi / 2)]


def test_scheduler_state_dict_round_trip():
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    s = L.StepLR(opt, 2)
    assert s.state_dict() == STEPLR_STATE
    for _ in range(3):
        opt.step()
        s.step()
    saved = s.state_dict()
    opt2 = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1)
    s2 = L.StepLR(opt2, 5)
    s2.load_state_dict(saved)
    assert (s2.step_size, s2.last_epoch, s2.get_last_lr()) == (2, 3, s.get_last_lr())


def test_lambda_state_dict_keeps_callable_objects_state():
    class Factor:
        def __init__(self):
            self.k = 0.5

        def __call__(self, epoch):
            return self.k ** epoch

    opt = _optimizer()
    s = L.LambdaLR(opt, [Factor(), lambda e: 1.0])
    s.lr_lambdas[0].k = 0.25
    state = s.state_dict()
    assert state["lr_lambdas"] == [{"k": 0.25}, None]
    s2 = L.LambdaLR(_optimizer(), [Factor(), lambda e: 1.0])
    s2.load_state_dict(state)
    assert s2.lr_lambdas[0].k == 0.25
    with pytest.raises(ValueError, match=r"^Expected 2 lr_lambdas, but got 1$"):
        L.LambdaLR(_optimizer(), [lambda e: 1.0])


def test_sequential_lr_state_and_errors():
    opt = _optimizer()
    first, second = L.ConstantLR(opt, factor=0.5, total_iters=2), L.ExponentialLR(opt, gamma=0.9)
    s = L.SequentialLR(opt, [first, second], milestones=[2])
    state = s.state_dict()
    assert state["_schedulers"] == [first.state_dict(), second.state_dict()]
    assert "optimizer" not in state
    with pytest.raises(ValueError, match=r"^Sequential Schedulers expects number of schedulers provided to be one "
                                         r"more than the number of milestone points, but got number of schedulers 2 "
                                         r"and the number of milestones to be equal to 2$"):
        L.SequentialLR(opt, [first, second], milestones=[2, 3])
    with pytest.raises(ValueError, match=r"^SequentialLR expects at least one scheduler, but got no scheduler.$"):
        L.SequentialLR(opt, [], milestones=[])
    with pytest.raises(ValueError, match=r"^SequentialLR does not support `ReduceLROnPlateau`"):
        L.SequentialLR(opt, [first, L.ReduceLROnPlateau(opt)], milestones=[2])


def test_chained_scheduler_multiplies_the_chain():
    opt = _optimizer()
    s = L.ChainedScheduler([L.ConstantLR(opt, factor=0.5, total_iters=2), L.ExponentialLR(opt, gamma=0.9)])
    lrs = _run(s, opt, 3)
    assert lrs[0] == pytest.approx([0.05, 0.025])
    assert lrs[3] == pytest.approx([0.1 * 0.9 ** 3, 0.05 * 0.9 ** 3])


def test_scheduler_type_errors_and_resume():
    with pytest.raises(TypeError, match=r"^int is not an Optimizer$"):
        L.StepLR(3, step_size=1)
    opt = _optimizer()
    with pytest.raises(KeyError, match=r"param 'initial_lr' is not specified in param_groups\[0\] when resuming"):
        L.StepLR(opt, step_size=1, last_epoch=3)
    L.StepLR(opt, step_size=1)
    s = L.StepLR(opt, step_size=2, gamma=0.5, last_epoch=3)
    assert s.base_lrs == [0.1, 0.05]
