"""A notebook-friendly render loop: step, render a frame with the viewer's renderer (headless EGL),
save it as a PNG. The numbered frames make a movie with ffmpeg:
    ffmpeg -framerate 30 -i frames/frame_%04d.png -pix_fmt yuv420p movie.mp4
In a notebook, show a frame with matplotlib's imshow (or IPython.display) instead of saving it."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import nbody
from _common import SCENES, arguments

args = arguments(__doc__)
bodies, frames, steps_per_frame, size = (3000, 3, 2, (320, 180)) if args.small else (65536, 300, 5, (1280, 720))

sim = nbody.Simulation.from_scene(str(SCENES / "milky-way-andromeda.toml"), bodies=bodies, backend=args.backend)
folder = args.out / "frames"
folder.mkdir(exist_ok=True)
camera = sim.camera
for k in range(frames):
    camera["azimuth"] += 0.25  # a slow turn round the scene
    frame = sim.render(width=size[0], height=size[1], camera=camera, colour="galaxy")
    plt.imsave(folder / f"frame_{k:04d}.png", frame)
    sim.step(steps_per_frame)
print(f"{frames} frames of {size[0]}x{size[1]} ({sim.renderer}) in {folder}")
